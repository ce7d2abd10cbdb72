import Timing
import Foundation
import TuyaCore
import TuyaWire

/// One paired Tuya BLE device: its connection and Tuya BLE session, driving the shared
/// `DeviceLinkCore` (commands, confirmation, coalescing, frame gap, reconciliation, events)
/// with the session's reports. A thin actor around the pure cores (`BLESession`,
/// `DeviceLinkCore`, `ConnectionSlots` through `BLEConnectionSlots`).
///
/// The connection follows the profile's policy: `keep` connects at `start()` and
/// reconnects whenever the link drops; `onDemand` connects for a command or a refresh
/// and disconnects after `idleTimeout` without traffic. Reconnects wait a capped,
/// doubling backoff; each connection first takes one of the adapter's slots.
///
/// Packets are queued on the transport from the actor, in order, so the packets of two frames
/// never interleave on the wire and no task stands between a command and its packets.
actor BLEDeviceLink: ProbedDeviceLink {
    struct Configuration: DeviceLinkTiming, Hashable, Sendable {
        /// Longer than over MQTT: an on-demand device must connect and pair first.
        var confirmationTimeout: Duration = .seconds(15)
        var session = BLESession.Configuration()
        var idleTimeout: Duration = .seconds(30)
        var backoff = Backoff.deviceLink
        /// How long an unconfirmed desired value is re-applied (`devices.reapply_within`).
        var reapplyWithin: Duration? = .seconds(120)
    }

    /// Why the current connection is being closed by the gateway.
    private enum CloseReason {
        case idle
        case failure(BLESessionError)
        case stopping
    }

    /// How a pairing probe ended: the first report after the session became ready, or
    /// the failure that ended the link first, or the link was stopped (the deadline).
    enum ProbeResult: ProbeEnding {
        case answered(DataPoints)
        case failed(BLESessionError)
        case stopped
    }

    static let linkLostHint = "BLE link lost; reconnecting"
    static let maxProblems = 64

    var core: DeviceLinkCore
    var driver: LinkDriverState

    let policy: BLEConnectionPolicy
    private nonisolated let transport: any TuyaBLETransport
    /// The current connection's reader thread (see `TuyaBLETransport.taskExecutor`).
    nonisolated var taskExecutor: (any TaskExecutor)? { transport.taskExecutor }
    private let slots: BLEConnectionSlots
    private let unixMilliseconds: @Sendable () -> Int64
    /// Where the device is, for `stored()`; nil for links made without one (tests).
    let identity: BLEIdentity?
    private let credentials: BLESession.Credentials
    private let configuration: Configuration

    private var session: BLESession
    var probes: [CheckedContinuation<ProbeResult, Never>] = []

    private var connectionTask: Task<Void, Never>?
    /// A connection is up: packets may be written.
    private var linkUp = false
    private var closeReason: CloseReason?
    private var refreshRequested = false
    private var attempt = 0
    private var idleDeadline: Duration?
    /// The device refused the pair request: reconnecting cannot help.
    private(set) var isRefused = false
    private var started = false
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
        core = DeviceLinkCore(
            device: device, profile: profile, timing: configuration, desired: desired, confirmed: confirmed,
            startedAt: clock.now())
        self.identity = identity
        self.credentials = credentials
        policy = profile.bleConnection
        self.transport = transport
        self.slots = slots
        self.unixMilliseconds = unixMilliseconds
        driver = LinkDriverState(clock: clock, hub: hub, onDesiredChange: onDesiredChange)
        self.configuration = configuration
        session = BLESession(
            credentials: credentials, profile: profile, configuration: configuration.session, ivSource: ivSource)
    }

    // MARK: - Queries from the controller

    /// True while the session is paired and DP traffic can flow.
    var isReady: Bool { session.phase == .ready }
    var lastProblem: BLESessionError? { problems.last }

    /// The device as persisted, with its desired and last reported values (for a rekey
    /// that must keep them). Nil for a link made without an identity.
    func stored() -> StoredDevice? {
        guard let identity, let key = try? AESKey(localKey: credentials.localKey) else { return nil }
        return StoredDevice(
            device: core.device, localKey: key, desired: core.desired, confirmed: core.reported, ble: identity)
    }

    // MARK: - Pairing

    /// Connects (whatever the policy): the probe ends when the device has paired and answered
    /// the first query.
    func beginProbe() { refresh() }

    // MARK: - Lifecycle

    /// Starts the link: a `keep` device connects now, an on-demand one at its first command.
    func start() {
        guard !started, !isStopped else { return }
        started = true
        if policy == .keep { ensureConnection() }
    }

    /// Drops the link, fails every waiting command with `stopped` and ends the timer.
    func stop() async {
        guard !isStopped else { return }
        driver.isStopped = true
        closeReason = .stopping
        driver.timer.cancel()
        connectionTask?.cancel()
        linkUp = false
        failWaiters()
        finishProbes(.stopped)
        await transport.disconnect()
    }

    // MARK: - Commands

    func commandQueued() {
        ensureConnection()
    }

    /// Asks the device for all its values (connecting first when needed).
    func refresh() {
        guard !isStopped else { return }
        if session.phase == .ready {
            perform(session.query(now: clock.now()))
            reschedule()
        } else {
            refreshRequested = true
            ensureConnection()
        }
    }

    // MARK: - Connection

    private var hasWork: Bool {
        !driver.waiters.isEmpty || core.hasPendingWrites || refreshRequested || !probes.isEmpty
    }
    private var wantsConnection: Bool { started && !isStopped && !isRefused && (policy == .keep || hasWork) }

    private func ensureConnection() {
        guard wantsConnection, connectionTask == nil else { return }
        connectionTask = Task { await self.runConnections() }
    }

    /// Connects, runs the session until the link drops, and reconnects after a backoff
    /// while a connection is wanted.
    private func runConnections() async {
        defer { connectionTask = nil }
        while wantsConnection {
            do { try await slots.acquire(core.device.id) } catch { return }
            await connectOnce()
            await slots.release(core.device.id)
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
        linkUp = !isStopped
        if isStopped { await transport.disconnect() }
        perform(session.connected(now: clock.now(), maximumPacketLength: transport.maximumPacketLength))
        reschedule()
        // On the thread that reads the packets, when the transport has one: a packet is handled
        // (and its acknowledgement written) where it was read, without waking a pool thread.
        await withTaskExecutorPreference(transport.taskExecutor) {
            for await packet in packets {
                guard !isStopped else { break }
                perform(session.receive(packet: packet, now: clock.now(), unixMilliseconds: unixMilliseconds()))
                reschedule()
            }
        }
        linkUp = false
        linkDropped()
    }

    private func linkDropped() {
        session.disconnected()
        core.pause()
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
        core.pause()
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
        let packets = actions.compactMap { action -> [UInt8]? in
            if case .write(let packet) = action { packet } else { nil }
        }
        if linkUp, !packets.isEmpty { transport.write(packets) }
        for action in actions {
            switch action {
            case .write:
                continue
            case .ready:
                sessionReady()
            case .report(let values):
                core.heard(at: Date(timeIntervalSince1970: TimeInterval(unixMilliseconds()) / 1000))
                perform(core.receive(report: values, now: clock.now()))
                armIdle()
                if !probes.isEmpty, session.phase == .ready { finishProbes(.answered(core.reported)) }
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
        core.heard(at: Date(timeIntervalSince1970: TimeInterval(unixMilliseconds()) / 1000))
        // The session queries every DP on its own; the answer drives reconciliation. (An
        // on-demand link reconnecting after an idle close stays online, so the new link
        // session is started here, not by the availability change.)
        core.linkEstablished()
        setAvailability(.online, hint: nil)
        perform(core.resume(now: now))
        armIdle()
    }

    func transmit(_ values: DataPoints) {
        perform(session.write(values, now: clock.now()))
        armIdle()
    }

    private func setAvailability(_ availability: Availability, hint: String?) {
        perform(core.setAvailability(availability, hint: hint))
    }

    // MARK: - Time

    private func armIdle() {
        guard policy == .onDemand else { return }
        idleDeadline = clock.now() + configuration.idleTimeout
    }

    /// The session's deadlines and, for an on-demand link, the idle close.
    var transportWake: Duration? {
        let idle = session.phase == .ready ? idleDeadline : nil
        return [session.nextWake, idle].compactMap { $0 }.min()
    }

    func transportTick(now: Duration) {
        perform(session.tick(now: now))
        if let idleDeadline, now >= idleDeadline, session.phase == .ready {
            if hasWork || session.isBusy {
                armIdle()
            } else {
                self.idleDeadline = nil
                closeReason = .idle
                core.pause()
                let transport = transport
                Task { await transport.disconnect() }
            }
        }
    }
}
