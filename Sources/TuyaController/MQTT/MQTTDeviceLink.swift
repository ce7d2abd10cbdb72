import Foundation
import Timing
import TuyaCore
import TuyaWire

/// One paired MQTT device: its topics, sequence numbers and availability by query, driving
/// the shared `DeviceLinkCore` (commands, confirmation, reconciliation, events) with the
/// device's "2.2" frames.
///
/// Frames leave through the bus's ordered `send`, so a query and a command never overtake each
/// other on the wire, and a failed publish is never retried (INTEROP.md).
actor MQTTDeviceLink: DeviceLinkDriver {
    struct Configuration: DeviceLinkTiming, Hashable, Sendable {
        var confirmationTimeout: Duration = .seconds(5)
        var availability = AvailabilityTracker.Configuration()
        var freshness = FrameFreshness.Configuration()
        /// How long an unconfirmed desired value is re-applied (`devices.reapply_within`).
        var reapplyWithin: Duration? = .seconds(120)
    }

    /// The `source` header field of gateway frames; 1 marks a device (protocol/TUYA.md §3.2).
    static let gatewaySource: UInt32 = 0

    var core: DeviceLinkCore
    var driver: LinkDriverState

    let inTopic: String
    private let key: AESKey
    private let unixTime: @Sendable () -> Int64
    private let bus: any DeviceBus
    private var tracker: AvailabilityTracker
    private var sequence: UInt32
    /// Frames dropped because they were corrupt, undecryptable or not a report.
    private(set) var droppedFrames = 0
    private var freshness: FrameFreshness
    /// Where refused frames are counted by reason (the gateway's metrics read it).
    private let statistics: DeviceBusStatistics?

    init(
        device: TuyaDevice, key: AESKey, profile: DeviceProfile, bus: any DeviceBus, configuration: Configuration,
        clock: OffsetClock, unixTime: @escaping @Sendable () -> Int64, sequenceSeed: UInt32, desired: DataPoints,
        confirmed: DataPoints = [:], hub: EventHub,
        onDesiredChange: @escaping @Sendable (DataPoints) -> Void
    ) {
        core = DeviceLinkCore(
            device: device, profile: profile, timing: configuration, desired: desired, confirmed: confirmed,
            startedAt: clock.now())
        freshness = FrameFreshness(configuration: configuration.freshness)
        statistics = bus.statistics
        self.key = key
        self.unixTime = unixTime
        driver = LinkDriverState(clock: clock, hub: hub, onDesiredChange: onDesiredChange)
        // TCK starts from rand() & 0xffff and adds one per frame (protocol/TUYA.md §3.2).
        sequence = sequenceSeed & 0xffff
        inTopic = "smart/device/in/\(device.id.rawValue)"
        tracker = AvailabilityTracker(configuration: configuration.availability)
        self.bus = bus
    }

    /// The device as persisted: for a rekey that must keep its desired and confirmed values.
    func stored() -> StoredDevice? {
        StoredDevice(device: core.device, localKey: key, desired: core.desired, confirmed: core.reported)
    }

    func refresh() {
        guard !isStopped else { return }
        publish(.query(dpIDs: nil))
    }

    // MARK: - Broker connection

    /// The broker session is up (first time or after a reconnect): query the device and
    /// let held frames go.
    func brokerConnected() {
        guard !isStopped else { return }
        let now = clock.now()
        perform(core.resume(now: now))
        perform(tracker.start(now: now))
        reschedule()
    }

    func brokerLost() {
        guard !isStopped else { return }
        core.pause()
        perform(tracker.brokerLost())
        reschedule()
    }

    func commandQueued() {}

    // MARK: - Frames from the device

    /// A payload published on `smart/device/out/<devId>`. Anything that is not an intact,
    /// decryptable, fresh protocol-4 report for this device changes no state.
    func receive(_ payload: [UInt8]) {
        guard !isStopped else { return }
        let now = clock.now()
        let frame: DecodedMQTTFrame
        do throws(WireError) {
            frame = try MQTTFrame.decode(payload, key: key)
        } catch {
            droppedFrames += 1
            if case .keyMismatch = error { perform(tracker.receivedKeyMismatch(now: now)) }
            reschedule()
            return
        }
        guard let (envelope, time) = try? TuyaEnvelope.decode(frame.body),
            case .report(let devId, let dps, _) = envelope,
            devId == nil || devId == core.device.id.rawValue
        else {
            droppedFrames += 1
            return
        }
        let unixNow = unixTime()
        let emitted: Int64
        switch freshness.check(time: time, sequence: frame.sequence, now: unixNow) {
        case .fresh(let emittedAt): emitted = emittedAt
        case .rejected(let reason):
            // A replay or a frame from another time: heard, but it proves nothing.
            statistics?.rejected(reason.rawValue)
            return
        }
        core.heard(at: Date(timeIntervalSince1970: TimeInterval(unixNow)))
        let values = DataPointJSON.decode(dps, profile: core.mapper.profile).values
        perform(tracker.receivedGoodFrame(now: now))
        let staleBefore = core.staleReports
        perform(core.receive(report: values, emittedAt: now - .seconds(unixNow - emitted), now: now))
        if core.staleReports > staleBefore { statistics?.rejected(DeviceBusStatistics.olderThanCommand) }
        reschedule()
    }

    // MARK: - Actions and time

    func transmit(_ values: DataPoints) {
        publish(.command(dps: DataPointJSON.encode(values)))
    }

    private func perform(_ actions: [AvailabilityTracker.Action]) {
        for action in actions {
            switch action {
            case .sendQuery:
                publish(.query(dpIDs: nil))
            case .changed(let availability, let hint):
                perform(core.setAvailability(availability, hint: hint))
            }
        }
    }

    private func publish(_ envelope: TuyaEnvelope) {
        guard !isStopped else { return }
        let body = envelope.encode(timestamp: unixTime())
        sequence &+= 1
        guard let frame = try? MQTTFrame.encode(body: body, key: key, sequence: sequence, source: Self.gatewaySource)
        else { return }
        // Not waited for, nor retried: the client may already hold the message, and the
        // confirmation deadline reports the command as failed if it never arrives.
        bus.send(topic: inTopic, payload: frame)
    }

    var transportWake: Duration? { tracker.nextWake }

    func transportTick(now: Duration) {
        perform(tracker.tick(now: now))
    }

    /// Ends the timer and fails every command still waiting; no frame leaves after this.
    func stop() {
        guard !isStopped else { return }
        driver.isStopped = true
        driver.timer.cancel()
        failWaiters()
    }
}
