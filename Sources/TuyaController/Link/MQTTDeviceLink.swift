import Timing
import Foundation
import TuyaCore
import TuyaWire

/// One paired MQTT device: its topics, sequence numbers, command queue, availability and
/// confirmed / desired / pending state. A thin actor around the pure cores
/// (`CommandQueue`, `AvailabilityTracker`, `Reconciliation`): it feeds them frames and
/// clock ticks and performs the actions they return.
///
/// Frames leave through one serial outbox so a query and a command never overtake each
/// other on the wire, and a failed publish is never retried (INTEROP.md).
actor MQTTDeviceLink {
    struct Configuration: Hashable, Sendable {
        var confirmationTimeout: Duration = .seconds(5)
        var availability = AvailabilityTracker.Configuration()
    }

    /// The `source` header field of gateway frames; 1 marks a device (protocol/TUYA.md §3.2).
    static let gatewaySource: UInt32 = 0

    private(set) var device: TuyaDevice
    let inTopic: String
    private let key: AESKey
    private let mapper: DataPointMapper
    private let clock: OffsetClock
    private let unixTime: @Sendable () -> Int64
    private let hub: EventHub
    private let onDesiredChange: @Sendable (DataPoints) -> Void
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private var publisher: Task<Void, Never>?

    private var queue: CommandQueue
    private var tracker: AvailabilityTracker
    private var sequence: UInt32
    /// Every DP the device has reported, merged.
    private(set) var reported: DataPoints = [:]
    /// DPs reported since the device last came online: what reconciliation compares with.
    private var reportedSinceOnline: DataPoints = [:]
    /// What the user asked for, re-applied when the device comes back.
    private(set) var desired: DataPoints
    private var needsReconcile = false
    private var lastSeen: Date?
    private var announcer: StateAnnouncer
    private var waiters: [CommandQueue.Ticket: CheckedContinuation<DeviceState, any Error>] = [:]
    private var timer = LinkTimer()
    private var stopped = false
    /// Frames dropped because they were corrupt, undecryptable or not a report.
    private(set) var droppedFrames = 0

    init(
        device: TuyaDevice, key: AESKey, profile: DeviceProfile, bus: any DeviceBus, configuration: Configuration,
        clock: OffsetClock, unixTime: @escaping @Sendable () -> Int64, sequenceSeed: UInt32, desired: DataPoints,
        confirmed: DataPoints = [:], hub: EventHub, onDesiredChange: @escaping @Sendable (DataPoints) -> Void
    ) {
        self.device = device
        self.key = key
        mapper = DataPointMapper(profile: profile)
        self.clock = clock
        self.unixTime = unixTime
        self.hub = hub
        self.onDesiredChange = onDesiredChange
        self.desired = desired
        // The values saved before a restart: the state is known before the device answers,
        // and a fault still raised is not announced again.
        reported = confirmed
        announcer = StateAnnouncer(device: device.id, saved: confirmed.isEmpty ? nil : mapper.state(from: confirmed))
        // TCK starts from rand() & 0xffff and adds one per frame (protocol/TUYA.md §3.2).
        sequence = sequenceSeed & 0xffff
        inTopic = "smart/device/in/\(device.id.rawValue)"
        queue = CommandQueue(
            configuration: .init(
                frameGap: .milliseconds(max(0, profile.frameGapMilliseconds)),
                confirmationTimeout: configuration.confirmationTimeout))
        queue.pause()
        tracker = AvailabilityTracker(configuration: configuration.availability)
        let (frames, outbox) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        self.outbox = outbox
        let topic = inTopic
        publisher = Task {
            for await frame in frames {
                // A failure is not retried: the client may already hold the message, and the
                // confirmation deadline reports the command as failed if it never arrives.
                try? await bus.publish(topic: topic, payload: frame)
            }
        }
    }

    // MARK: - Queries from the controller

    var status: ConnectionStatus {
        ConnectionStatus(availability: tracker.availability, lastSeen: lastSeen, hint: tracker.hint)
    }

    var confirmedState: DeviceState { mapper.state(from: reported) }

    var pendingState: DeviceState { mapper.state(from: reported.merging(queue.pending) { _, newer in newer }) }

    /// The device as persisted: for a rekey that must keep its desired and confirmed values.
    func stored(key: AESKey? = nil) -> StoredDevice {
        StoredDevice(device: device, localKey: key ?? self.key, desired: desired, confirmed: reported)
    }

    func rename(_ name: String) {
        device.name = name
    }

    /// Asks the device for all its values now (its report refreshes the confirmed state).
    func refresh() {
        guard !stopped else { return }
        publish(.query(dpIDs: nil))
    }

    // MARK: - Broker connection

    /// The broker session is up (first time or after a reconnect): query the device and
    /// let held frames go.
    func brokerConnected() {
        guard !stopped else { return }
        let now = clock.now()
        perform(queue.resume(now: now))
        perform(tracker.start(now: now))
        reschedule()
    }

    func brokerLost() {
        guard !stopped else { return }
        queue.pause()
        perform(tracker.brokerLost())
        reschedule()
    }

    // MARK: - Commands

    /// Writes the DPs in one frame (after the frame gap) and returns the state the device
    /// confirms, or throws `confirmationTimeout` naming the DPs still pending.
    func send(_ writes: DataPoints) async throws -> DeviceState {
        guard !stopped else { throw ControllerError.stopped }
        desired.merge(writes) { _, newer in newer }
        onDesiredChange(desired)
        let (ticket, actions) = queue.enqueue(writes, now: clock.now())
        return try await withCheckedThrowingContinuation { continuation in
            waiters[ticket] = continuation
            perform(actions)
            reschedule()
        }
    }

    // MARK: - Frames from the device

    /// A payload published on `smart/device/out/<devId>`. Anything that is not an intact,
    /// decryptable protocol-4 report for this device changes no state.
    func receive(_ payload: [UInt8]) {
        guard !stopped else { return }
        let now = clock.now()
        let body: [UInt8]
        do throws(WireError) {
            body = try MQTTFrame.decode(payload, key: key).body
        } catch {
            droppedFrames += 1
            if case .keyMismatch = error { perform(tracker.receivedKeyMismatch(now: now)) }
            reschedule()
            return
        }
        guard let (envelope, _) = try? TuyaEnvelope.decode(body),
            case .report(let devId, let dps, _) = envelope,
            devId == nil || devId == device.id.rawValue
        else {
            droppedFrames += 1
            return
        }
        lastSeen = Date(timeIntervalSince1970: TimeInterval(unixTime()))
        let values = DataPointJSON.decode(dps, profile: mapper.profile).values
        perform(tracker.receivedGoodFrame(now: now))
        apply(values, now: now)
        reschedule()
    }

    private func apply(_ values: DataPoints, now: Duration) {
        reported.merge(values) { _, newer in newer }
        reportedSinceOnline.merge(values) { _, newer in newer }
        let pendingBefore = queue.pending
        perform(queue.receiveReport(values, now: now))
        if needsReconcile {
            needsReconcile = false
            let plan = Reconciliation.plan(reported: reportedSinceOnline, desired: desired)
            if !plan.isEmpty { perform(queue.enqueueUntracked(plan, now: now)) }
        } else {
            if Reconciliation.adopt(values, into: &desired, pending: pendingBefore) { onDesiredChange(desired) }
        }
        publishStateIfChanged()
    }

    private func publishStateIfChanged() {
        for event in announcer.events(for: mapper.state(from: reported)) { hub.publish(event) }
    }

    // MARK: - Actions and time

    private func perform(_ actions: [CommandQueue.Action]) {
        for action in actions {
            switch action {
            case .send(let values):
                publish(.command(dps: DataPointJSON.encode(values)))
            case .confirmed(let ticket):
                waiters.removeValue(forKey: ticket)?.resume(returning: confirmedState)
            case .timedOut(let ticket, let pending):
                waiters.removeValue(forKey: ticket)?.resume(
                    throwing: ControllerError.confirmationTimeout(device: device.id, pending: pending))
            }
        }
    }

    private func perform(_ actions: [AvailabilityTracker.Action]) {
        for action in actions {
            switch action {
            case .sendQuery:
                publish(.query(dpIDs: nil))
            case .changed(let availability, let hint):
                if availability == .online {
                    // Back from offline, a broker outage or a restart: re-apply what differs.
                    needsReconcile = true
                } else {
                    reportedSinceOnline = [:]
                }
                hub.publish(
                    .availabilityChanged(
                        device.id, ConnectionStatus(availability: availability, lastSeen: lastSeen, hint: hint)))
            }
        }
    }

    private func publish(_ envelope: TuyaEnvelope) {
        let body = envelope.encode(timestamp: unixTime())
        sequence &+= 1
        guard let frame = try? MQTTFrame.encode(body: body, key: key, sequence: sequence, source: Self.gatewaySource)
        else { return }
        outbox.yield(frame)
    }

    /// Keeps one timer task sleeping until the earliest wake either core asks for.
    private func reschedule() {
        let wake = [queue.nextWake, tracker.nextWake].compactMap { $0 }.min()
        timer.arm(for: stopped ? nil : wake, clock: clock) { [weak self] in await self?.tick() }
    }

    private func tick() {
        timer.fired()
        guard !stopped else { return }
        let now = clock.now()
        perform(queue.tick(now: now))
        perform(tracker.tick(now: now))
        reschedule()
    }

    /// Ends the timer and the outbox and fails every command still waiting.
    func stop() {
        guard !stopped else { return }
        stopped = true
        timer.cancel()
        outbox.finish()
        _ = queue.cancelAll()
        for waiter in waiters.values { waiter.resume(throwing: ControllerError.stopped) }
        waiters = [:]
    }
}
