import Timing
import Foundation
import TuyaCore
import TuyaWire

/// One paired Tuya BLE device: its connection, session, command queue and confirmed /
/// desired / pending state. A thin actor around the pure cores (`BLESession`,
/// `CommandQueue`, `Reconciliation`, `ConnectionSlots` through `BLEConnectionSlots`),
/// giving BLE devices the same commands, confirmation, coalescing, frame gap,
/// reconciliation and events as `MQTTDeviceLink` gives Wi-Fi ones.
///
/// The connection follows the profile's policy: `keep` connects at `start()` and
/// reconnects whenever the link drops; `onDemand` connects for a command or a refresh
/// and disconnects after `idleTimeout` without traffic. Reconnects wait a capped,
/// doubling backoff; each connection first takes one of the adapter's slots.
///
/// Packets leave through one serial writer per connection, so the packets of two frames
/// never interleave on the wire.
actor BLEDeviceLink {
    struct Configuration: Hashable, Sendable {
        /// Longer than over MQTT: an on-demand device must connect and pair first.
        var confirmationTimeout: Duration = .seconds(15)
        var session = BLESession.Configuration()
        var idleTimeout: Duration = .seconds(30)
        var backoff = Backoff.deviceLink
    }

    /// Why the current connection is being closed by the gateway.
    private enum CloseReason {
        case idle
        case failure(BLESessionError)
        case stopping
    }

    /// How a pairing probe ended: the first report after the session became ready, or
    /// the failure that ended the link first, or the link was stopped (the deadline).
    enum ProbeResult: Sendable {
        case answered(DataPoints)
        case failed(BLESessionError)
        case stopped
    }

    static let linkLostHint = "BLE link lost; reconnecting"
    static let maxProblems = 64

    private(set) var device: TuyaDevice
    let policy: BLEConnectionPolicy
    private let transport: any TuyaBLETransport
    private let slots: BLEConnectionSlots
    private let mapper: DataPointMapper
    private let clock: OffsetClock
    private let unixMilliseconds: @Sendable () -> Int64
    private var hub: EventHub
    private var onDesiredChange: @Sendable (DataPoints) -> Void
    /// Where the device is, for `stored()`; nil for links made without one (tests).
    let identity: BLEIdentity?
    private let credentials: BLESession.Credentials
    private let configuration: Configuration

    private var session: BLESession
    private var queue: CommandQueue
    private var availability: Availability = .unknown
    private var hint: String?
    private var lastSeen: Date?
    /// Every DP the device has reported, merged.
    private(set) var reported: DataPoints
    /// DPs reported since the session last became ready: what reconciliation compares with.
    private var reportedSinceReady: DataPoints = [:]
    /// What the user asked for, re-applied after every reconnect.
    private(set) var desired: DataPoints
    private var needsReconcile = false
    /// Values written on the current connection: reconciliation does not write them again.
    private var sentThisConnection: DataPoints = [:]
    private var announcer: StateAnnouncer
    private var waiters: [CommandQueue.Ticket: CheckedContinuation<DeviceState, any Error>] = [:]
    private var probes: [CheckedContinuation<ProbeResult, Never>] = []

    private var connectionTask: Task<Void, Never>?
    private var outbox: AsyncStream<[UInt8]>.Continuation?
    private var closeReason: CloseReason?
    private var refreshRequested = false
    private var attempt = 0
    private var idleDeadline: Duration?
    /// The device refused the pair request: reconnecting cannot help.
    private(set) var isRefused = false
    private var started = false
    private var stopped = false
    private var timer = LinkTimer()
    /// Problems and failures seen, oldest first (the last `maxProblems`).
    private(set) var problems: [BLESessionError] = []
    /// Connections made (transport connected), for tests and diagnostics.
    private(set) var connections = 0
    /// The radio's tally, counted into with every problem.
    private let failures: BLEFailureTally

    init(
        device: TuyaDevice, credentials: BLESession.Credentials, profile: DeviceProfile,
        identity: BLEIdentity? = nil, transport: any TuyaBLETransport, slots: BLEConnectionSlots,
        configuration: Configuration = Configuration(),
        clock: OffsetClock, unixMilliseconds: @escaping @Sendable () -> Int64,
        ivSource: any IVSource = RandomIVSource(),
        desired: DataPoints = [:], confirmed: DataPoints = [:], hub: EventHub, failures: BLEFailureTally = .init(),
        onDesiredChange: @escaping @Sendable (DataPoints) -> Void = { _ in }
    ) {
        self.failures = failures
        self.device = device
        self.identity = identity
        self.credentials = credentials
        policy = profile.bleConnection
        self.transport = transport
        self.slots = slots
        mapper = DataPointMapper(profile: profile)
        self.clock = clock
        self.unixMilliseconds = unixMilliseconds
        self.hub = hub
        self.onDesiredChange = onDesiredChange
        self.configuration = configuration
        self.desired = desired
        reported = confirmed
        announcer = StateAnnouncer(device: device.id, saved: confirmed.isEmpty ? nil : mapper.state(from: confirmed))
        session = BLESession(
            credentials: credentials, profile: profile, configuration: configuration.session, ivSource: ivSource)
        queue = CommandQueue(
            configuration: .init(
                frameGap: .milliseconds(max(0, profile.frameGapMilliseconds)),
                confirmationTimeout: configuration.confirmationTimeout))
        queue.pause()
    }

    // MARK: - Queries from the controller

    var status: ConnectionStatus { ConnectionStatus(availability: availability, lastSeen: lastSeen, hint: hint) }
    var confirmedState: DeviceState { mapper.state(from: reported) }
    var pendingState: DeviceState { mapper.state(from: reported.merging(queue.pending) { _, newer in newer }) }
    /// True while the session is paired and DP traffic can flow.
    var isReady: Bool { session.phase == .ready }
    var lastProblem: BLESessionError? { problems.last }

    func rename(_ name: String) {
        device.name = name
    }

    /// The device as persisted, with its desired and last reported values (for a rekey
    /// that must keep them). Nil for a link made without an identity.
    func stored() -> StoredDevice? {
        guard let identity, let key = try? AESKey(localKey: credentials.localKey) else { return nil }
        return StoredDevice(device: device, localKey: key, desired: desired, confirmed: reported, ble: identity)
    }

    // MARK: - Pairing

    /// Connects (whatever the policy) and returns when the device has paired and answered
    /// the first query, or when a failure ends the link first, or when the link is stopped.
    /// The pairing caller bounds it by stopping the link at its deadline.
    func probe() async -> ProbeResult {
        guard !stopped else { return .stopped }
        return await withCheckedContinuation { continuation in
            probes.append(continuation)
            refresh()
        }
    }

    private func finishProbes(_ result: ProbeResult) {
        let waiting = probes
        probes = []
        for probe in waiting { probe.resume(returning: result) }
    }

    /// Hands a link that paired under a private hub to the registry: events now go to
    /// `hub`, desired-state changes to `onDesiredChange`, and the current availability and
    /// state are announced there, so subscribers learn them as for any other device.
    func adopt(hub: EventHub, onDesiredChange: @escaping @Sendable (DataPoints) -> Void) {
        self.hub = hub
        self.onDesiredChange = onDesiredChange
        hub.publish(
            .availabilityChanged(
                device.id, ConnectionStatus(availability: availability, lastSeen: lastSeen, hint: hint)))
        announcer = StateAnnouncer(device: device.id, saved: nil)
        publishStateIfChanged()
    }

    // MARK: - Lifecycle

    /// Starts the link: a `keep` device connects now, an on-demand one at its first command.
    func start() {
        guard !started, !stopped else { return }
        started = true
        if policy == .keep { ensureConnection() }
    }

    /// Drops the link, fails every waiting command with `stopped` and ends the timer.
    func stop() async {
        guard !stopped else { return }
        stopped = true
        closeReason = .stopping
        timer.cancel()
        connectionTask?.cancel()
        outbox?.finish()
        _ = queue.cancelAll()
        for waiter in waiters.values { waiter.resume(throwing: ControllerError.stopped) }
        waiters = [:]
        finishProbes(.stopped)
        await transport.disconnect()
    }

    // MARK: - Commands

    /// Writes the DPs in one frame (after the frame gap, connecting first when needed)
    /// and returns the state the device confirms, or throws `confirmationTimeout`.
    func send(_ writes: DataPoints) async throws -> DeviceState {
        guard !stopped else { throw ControllerError.stopped }
        desired.merge(writes) { _, newer in newer }
        onDesiredChange(desired)
        let (ticket, actions) = queue.enqueue(writes, now: clock.now())
        return try await withCheckedThrowingContinuation { continuation in
            waiters[ticket] = continuation
            perform(actions)
            ensureConnection()
            reschedule()
        }
    }

    /// Asks the device for all its values (connecting first when needed).
    func refresh() {
        guard !stopped else { return }
        if session.phase == .ready {
            perform(session.query(now: clock.now()))
            reschedule()
        } else {
            refreshRequested = true
            ensureConnection()
        }
    }

    // MARK: - Connection

    private var hasWork: Bool { !waiters.isEmpty || !queue.queued.isEmpty || refreshRequested || !probes.isEmpty }
    private var wantsConnection: Bool { started && !stopped && !isRefused && (policy == .keep || hasWork) }

    private func ensureConnection() {
        guard wantsConnection, connectionTask == nil else { return }
        connectionTask = Task { await self.runConnections() }
    }

    /// Connects, runs the session until the link drops, and reconnects after a backoff
    /// while a connection is wanted.
    private func runConnections() async {
        defer { connectionTask = nil }
        while wantsConnection {
            do { try await slots.acquire(device.id) } catch { return }
            await connectOnce()
            await slots.release(device.id)
            guard wantsConnection else { return }
            // A command that arrived while an idle link was closing: no reason to wait.
            if case .idle = closeReason { continue }
            let delay = configuration.backoff.delay(retry: attempt, unitRandom: Double.random(in: 0..<1))
            attempt += 1
            do { try await clock.sleepUntil(clock.now() + delay) } catch { return }
        }
    }

    private func connectOnce() async {
        do {
            try await transport.connect()
        } catch {
            fail(.connectFailed(reason: String(describing: error)))
            return
        }
        connections += 1
        closeReason = nil
        let packets = transport.packets()
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        outbox = continuation
        let transport = transport
        let writer = Task {
            for await packet in stream {
                do { try await transport.write(packet) } catch {
                    await transport.disconnect()
                    return
                }
            }
        }
        if stopped { await transport.disconnect() }
        perform(session.connected(now: clock.now()))
        reschedule()
        for await packet in packets {
            guard !stopped else { break }
            perform(session.receive(packet: packet, now: clock.now(), unixMilliseconds: unixMilliseconds()))
            reschedule()
        }
        continuation.finish()
        outbox = nil
        writer.cancel()
        linkDropped()
    }

    private func linkDropped() {
        session.disconnected()
        queue.pause()
        idleDeadline = nil
        switch closeReason {
        case .idle, .stopping, .failure: break
        case nil: setAvailability(.offline, hint: Self.linkLostHint)
        }
        reschedule()
    }

    /// Ends the connection because of `error` (the loop reconnects unless refused).
    private func fail(_ error: BLESessionError) {
        note(error)
        finishProbes(.failed(error))
        closeReason = .failure(error)
        queue.pause()
        switch error {
        case .refused:
            isRefused = true
            setAvailability(.offline, hint: error.description)
        case .wrongKey, .deviceInfoUnanswered:
            setAvailability(.authFailed, hint: error.description)
        default:
            setAvailability(.offline, hint: error.description)
        }
        let transport = transport
        Task { await transport.disconnect() }
    }

    private func note(_ problem: BLESessionError) {
        failures.count(problem)
        problems.append(problem)
        if problems.count > Self.maxProblems { problems.removeFirst(problems.count - Self.maxProblems) }
    }

    // MARK: - Actions

    /// Packets go out first: handling `.ready` or a report can send a frame at once (a
    /// queued command, a reconciliation), and its sn is higher than those already built,
    /// so it must not overtake them (the device drops the link on a non-increasing sn).
    private func perform(_ actions: [BLESession.Action]) {
        for case .write(let packet) in actions { outbox?.yield(packet) }
        for action in actions {
            switch action {
            case .write:
                continue
            case .ready:
                sessionReady()
            case .report(let values):
                lastSeen = Date(timeIntervalSince1970: TimeInterval(unixMilliseconds()) / 1000)
                apply(values, now: clock.now())
                armIdle()
                if !probes.isEmpty, session.phase == .ready { finishProbes(.answered(reported)) }
            case .problem(let problem):
                note(problem)
            case .fail(let error):
                fail(error)
            }
        }
    }

    private func sessionReady() {
        let now = clock.now()
        attempt = 0
        refreshRequested = false
        lastSeen = Date(timeIntervalSince1970: TimeInterval(unixMilliseconds()) / 1000)
        reportedSinceReady = [:]
        sentThisConnection = [:]
        // The session queries every DP on its own; the answer drives reconciliation.
        needsReconcile = true
        setAvailability(.online, hint: nil)
        perform(queue.resume(now: now))
        armIdle()
    }

    private func perform(_ actions: [CommandQueue.Action]) {
        for action in actions {
            switch action {
            case .send(let values):
                sentThisConnection.merge(values) { _, newer in newer }
                perform(session.write(values, now: clock.now()))
                armIdle()
            case .confirmed(let ticket):
                waiters.removeValue(forKey: ticket)?.resume(returning: confirmedState)
            case .timedOut(let ticket, let pending):
                waiters.removeValue(forKey: ticket)?.resume(
                    throwing: ControllerError.confirmationTimeout(device: device.id, pending: pending))
            }
        }
    }

    private func apply(_ values: DataPoints, now: Duration) {
        reported.merge(values) { _, newer in newer }
        reportedSinceReady.merge(values) { _, newer in newer }
        let pendingBefore = queue.pending
        perform(queue.receiveReport(values, now: now))
        if needsReconcile {
            needsReconcile = false
            // A command queued while disconnected went out when the session became ready;
            // its own report confirms it, so it is not written a second time.
            let plan = Reconciliation.plan(reported: reportedSinceReady, desired: desired)
                .filter { id, value in sentThisConnection[id] != value }
            if !plan.isEmpty { perform(queue.enqueueUntracked(plan, now: now)) }
        } else {
            if Reconciliation.adopt(values, into: &desired, pending: pendingBefore) { onDesiredChange(desired) }
        }
        publishStateIfChanged()
    }

    private func publishStateIfChanged() {
        for event in announcer.events(for: mapper.state(from: reported)) { hub.publish(event) }
    }

    private func setAvailability(_ availability: Availability, hint: String?) {
        guard availability != self.availability || hint != self.hint else { return }
        self.availability = availability
        self.hint = hint
        hub.publish(
            .availabilityChanged(
                device.id, ConnectionStatus(availability: availability, lastSeen: lastSeen, hint: hint)))
    }

    // MARK: - Time

    private func armIdle() {
        guard policy == .onDemand else { return }
        idleDeadline = clock.now() + configuration.idleTimeout
    }

    /// Keeps one timer task sleeping until the earliest wake the cores or the idle policy ask for.
    private func reschedule() {
        let idle = session.phase == .ready ? idleDeadline : nil
        let wake = [queue.nextWake, session.nextWake, idle].compactMap { $0 }.min()
        timer.arm(for: stopped ? nil : wake, clock: clock) { [weak self] in await self?.tick() }
    }

    private func tick() {
        timer.fired()
        guard !stopped else { return }
        let now = clock.now()
        perform(queue.tick(now: now))
        perform(session.tick(now: now))
        if let idleDeadline, now >= idleDeadline, session.phase == .ready {
            if hasWork || session.isBusy {
                armIdle()
            } else {
                self.idleDeadline = nil
                closeReason = .idle
                queue.pause()
                let transport = transport
                Task { await transport.disconnect() }
            }
        }
        reschedule()
    }
}
