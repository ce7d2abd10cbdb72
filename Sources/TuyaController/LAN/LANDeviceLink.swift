import Foundation
import LANLink
import Logging
import Timing
import TuyaCore
import TuyaWire

/// One paired Tuya LAN device: its one TCP connection (never two: a second session locks
/// some firmware up until it is power-cycled), its protocol session (`LANClientSession`,
/// a new session key on every connection), and `LANLinkPolicy` for heartbeats, status
/// reads, reconnects and availability, driving the shared `DeviceLinkCore` with the
/// device's STATUS pushes and query answers.
///
/// The actor owns the connection: every frame goes out through it in order, and a command
/// waits in the core's queue while the device is unreachable. It runs on its connection's
/// event loop (`LANLoop`): bytes from the device are handled as they are read, and frames
/// are written, on that thread, without a hop through the cooperative pool.
actor LANDeviceLink: ProbedDeviceLink {
    var core: DeviceLinkCore
    var driver: LinkDriverState
    /// The event loop the actor and its connections run on.
    nonisolated let loop: LANLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.unownedExecutor }
    nonisolated var taskExecutor: (any TaskExecutor)? { loop.taskExecutor }

    /// Where the device is and which version it speaks (changes after a DHCP move or a re-probe).
    private(set) var endpoint: LANEndpoint
    private let version: LANProtocolVersion
    let key: AESKey
    private let connector: any LANConnector
    private let configuration: Configuration
    private let unixTime: @Sendable () -> Int64
    private let onReprobe: @Sendable (DeviceID) -> Void
    private(set) var policy: LANLinkPolicy
    private var session: LANClientSession
    private var stream: (any LANByteStream)?
    /// Counts connections, so events from a connection already given up are ignored.
    private var generation = 0
    private var connectTask: Task<Void, Never>?
    var probes: [CheckedContinuation<ProbeResult, Never>] = []
    /// The device answered a plain DP query with "data unvalid": it wants the device22 form.
    private var usesDevice22Query = false
    /// Connections made, for tests and diagnostics.
    private(set) var connections = 0
    /// Frames from the device that carried no usable values (acks, heartbeats excluded).
    private(set) var unreadableReports = 0
    /// Bad frames from the device (each ends its connection), logged or not.
    private(set) var badFrames = 0
    private var faultLog = LANFaultLog()
    private let logger: Logger
    /// Where the device proved the key (LANAddressProof): what a broadcast's address must
    /// do before it is shown online or saved (`onAddressProven`).
    private var proof: LANAddressProof
    var provenAddress: String { proof.proven }
    private let onAddressProven: @Sendable (LANEndpoint) -> Void

    init(
        device: TuyaDevice, key: AESKey, endpoint: LANEndpoint, version: LANProtocolVersion, profile: DeviceProfile,
        connector: any LANConnector, configuration: Configuration = Configuration(), clock: OffsetClock,
        unixTime: @escaping @Sendable () -> Int64, desired: DataPoints = [:], confirmed: DataPoints = [:],
        hub: EventHub, onDesiredChange: @escaping @Sendable (DataPoints) -> Void = { _ in },
        onReprobe: @escaping @Sendable (DeviceID) -> Void = { _ in },
        onAddressProven: @escaping @Sendable (LANEndpoint) -> Void = { _ in }, versionUnproven: Bool = false,
        logger: Logger = Logger(label: "youll-devices.lan"), loop: LANLoop = .next()
    ) {
        // A version from a broadcast (not saved) is proven like an address heard in one.
        proof = LANAddressProof(proven: endpoint.ip, versionProven: !versionUnproven)
        self.onAddressProven = onAddressProven
        self.loop = loop
        core = DeviceLinkCore(
            device: device, profile: profile, timing: configuration, desired: desired, confirmed: confirmed,
            startedAt: clock.now())
        self.key = key
        self.endpoint = endpoint
        self.version = version
        self.connector = connector
        self.configuration = configuration
        self.unixTime = unixTime
        driver = LinkDriverState(clock: clock, hub: hub, onDesiredChange: onDesiredChange)
        self.onReprobe = onReprobe
        self.logger = logger
        policy = LANLinkPolicy(configuration: configuration.policy)
        session = Self.makeSession(version: version, key: key, endpoint: endpoint, firstSequence: 1)
    }

    // MARK: - DeviceLinkDriver

    func transportTick(now: Duration) {
        perform(policy.tick(now: now))
    }

    /// The connection is kept open, so a queued command goes out as soon as it is up.
    func commandQueued() {}

    func transmit(_ values: DataPoints) {
        send(
            .control(
                version: version, devId: core.device.id.rawValue, dps: DataPointJSON.encode(values),
                timestamp: unixTime()))
    }

    func refresh() {
        guard !isStopped else { return }
        sendStatusQuery()
    }

    // MARK: - Lifecycle

    /// Connects, and keeps a connection open until `stop()`.
    func start() {
        guard !isStopped else { return }
        perform(policy.start(now: clock.now()))
        reschedule()
    }

    /// Stops for good, and returns once the device has let the connection go (or after
    /// `releaseTimeout`): a device holds one client and refuses a second ("busy"), so the
    /// link that connects next (the registered one after a pairing probe, the replacement
    /// after a rekey or re-probe) must not meet this connection still open on the device.
    func stop() async {
        guard !isStopped else { return }
        driver.isStopped = true
        driver.timer.cancel()
        // Taken out first, so it is released below rather than dropped at once.
        let open = stream
        stream = nil
        perform(policy.stop())
        closeStream()
        connectTask?.cancel()
        failWaiters()
        finishProbes(.stopped)
        await open?.closeAndWait(timeout: configuration.releaseTimeout)
    }

    /// The device was heard broadcasting from another address (a DHCP change): connect there
    /// at once. Held while the session is up: the device is then demonstrably where the link
    /// reaches it, and broadcasts are unauthenticated (anyone can claim a device's id from
    /// their own address, and each claim cost a database write). A real move drops the session
    /// soon after; the controller offers the address again with the next broadcast.
    func addressChanged(to ip: String) -> AddressChange {
        guard ip != endpoint.ip, LANEndpoint.isIPv4(ip) else { return .unchanged }
        guard proof.allowsMove(to: ip, now: clock.now()) else { return .unchanged }
        guard !policy.isEstablished else { return .heldWhileConnected }
        endpoint.ip = ip
        if !isStopped {
            closeStream()
            perform(policy.retryNow(now: clock.now()))
            reschedule()
        }
        return .moved
    }

    /// Starts the link: the probe ends when the device first answered on an established session.
    func beginProbe() { start() }

    // MARK: - Policy actions

    private func perform(_ actions: [LANLinkPolicy.Action]) {
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .startSession:
                let start = session.start()
                if !start.isEmpty { stream?.write(start) }
                if session.isEstablished { sessionEstablished() }
            case .sendHeartbeat:
                send(.heartbeat(devId: core.device.id.rawValue))
            case .sendStatusQuery:
                sendStatusQuery()
            case .close:
                returnToProvenAddress()
                closeStream()
            case .availability(let availability, let hint):
                perform(core.setAvailability(availability, hint: hint))
            case .reprobeVersion:
                onReprobe(core.device.id)
            }
        }
    }

    private func sendStatusQuery() {
        let devId = core.device.id.rawValue
        if usesDevice22Query {
            let ids = core.mapper.profile.dataPoints.map { Int($0.id.rawValue) }
            send(.device22Query(devId: devId, dpIDs: ids, timestamp: unixTime()))
        } else {
            send(.query(version: version, devId: devId, timestamp: unixTime()))
        }
    }

    /// Encodes and writes one request on the established session; nothing otherwise (the
    /// core keeps commands queued until the connection is up).
    private func send(_ request: LANRequest) {
        guard let stream, session.isEstablished else { return }
        guard let frame = try? session.encode(request) else { return }
        stream.write(frame)
        perform(policy.sent(now: clock.now()))
    }

    // MARK: - The connection

    private func connect() {
        generation += 1
        let generation = generation
        let (connector, loop) = (connector, loop)
        let (host, port, timeout) = (endpoint.ip, configuration.port, configuration.connectTimeout)
        connectTask = Task { [weak self] in
            do throws(LANConnectError) {
                let stream = try await connector.connect(host: host, port: port, timeout: timeout, on: loop)
                await self?.connected(stream, generation: generation)
            } catch {
                await self?.connectFailed(error, generation: generation)
            }
        }
    }

    private func connected(_ stream: any LANByteStream, generation: Int) {
        guard generation == self.generation, !isStopped else {
            stream.close()
            return
        }
        self.stream = stream
        connections += 1
        proof.resetConnection()
        // A new session (and key) per connection; the sequence keeps rising.
        session = Self.makeSession(
            version: version, key: key, endpoint: endpoint, firstSequence: session.nextSequence)
        perform(policy.connected(now: clock.now()))
        reschedule()
        // Called on the loop this actor runs on, so handled at once, in order; last, as bytes
        // that came already are handed over from within this call.
        stream.deliver(
            on: loop,
            received: { [weak self] bytes in self?.assumeIsolated { $0.received(bytes, generation: generation) } },
            ended: { [weak self] in self?.assumeIsolated { $0.streamEnded(generation: generation) } })
    }

    private func connectFailed(_ error: LANConnectError, generation: Int) {
        guard generation == self.generation, !isStopped else { return }
        let failure: LANLinkPolicy.Failure
        if case .refused = error { failure = .refused } else { failure = .unreachable(error.description) }
        fail(failure)
    }

    private func received(_ bytes: [UInt8], generation: Int) {
        guard generation == self.generation, !isStopped else { return }
        var handshaking = !session.isEstablished
        for event in session.receive(bytes) {
            switch event {
            case .send(let frame):
                stream?.write(frame)
            case .established:
                handshaking = false
                sessionEstablished()
            case .message(let message):
                handle(message)
            case .failed(let failure):
                logBadFrame(
                    LANFrameFault(failure, version: version, duringHandshake: handshaking),
                    detail: failure.description)
                fail(failure.isKeyMismatch ? .keyMismatch(failure.description) : .protocolError(failure.description))
                return
            }
        }
        reschedule()
    }

    private func streamEnded(generation: Int) {
        guard generation == self.generation, !isStopped else { return }
        guard let (received, expected) = session.partialFrame else {
            // After a 3.4/3.5 handshake the device answered (its HMAC verified), the session
            // was ours: a close then is not another client holding the device.
            let handshook = version.negotiatesSessionKey && session.isEstablished
            return fail(handshook ? .closedAfterHandshake : .closedByDevice)
        }
        let hint = LANLinkPolicy.midFrameHint(received: received, expected: expected)
        logBadFrame(.truncated, detail: hint)
        fail(.closedMidFrame(received: received, expected: expected))
    }

    /// One line per bad frame, naming the device (its id, never its key), the fault and the
    /// connection, rate-limited by `LANFaultLog` on the link's clock. `detail` is the
    /// session's description of the failure: what was wrong, never the frame's bytes.
    private func logBadFrame(_ fault: LANFrameFault, detail: String) {
        badFrames += 1
        guard let suppressed = faultLog.admit(now: clock.now()) else { return }
        let left =
            suppressed == 0 ? "" : "; \(suppressed) more bad frames from it left out of the log since the last line"
        logger.warning(
            "LAN device \(core.device.id.rawValue): \(fault) on connection \(connections) to \(endpoint.ip):\(configuration.port): \(detail)\(left)",
            metadata: ["device": "\(core.device.id.rawValue)", "fault": "\(fault)", "connection": "\(connections)"])
    }

    private func fail(_ failure: LANLinkPolicy.Failure) {
        var failure = failure
        if !proof.blamesKey(at: endpoint.ip), case .keyMismatch(let detail) = failure {
            // Not counted as a wrong key: the stored one is not in doubt, whoever answered there
            // (or the version a broadcast claimed) is.
            let speaking = proof.versionProven ? "" : " speaking \(version.rawValue)"
            failure = .unreachable("\(endpoint.ip) did not prove the local key\(speaking) (\(detail))")
        }
        returnToProvenAddress()
        finishProbes(.failed(failure))
        perform(policy.failed(failure, now: clock.now(), unitRandom: Double.random(in: 0..<1)))
        closeStream()
        reschedule()
    }

    private func closeStream() {
        proof.resetConnection()
        generation += 1
        core.pause()
        stream?.close()
        stream = nil
    }

    /// The session key is agreed (at once for 3.1–3.3): a new link session for
    /// reconciliation, a status read, and the queued commands go out.
    private func sessionEstablished() {
        // A handshake proves the key; 3.1–3.3 have none, and prove it with their first payload.
        if version.negotiatesSessionKey { keyProven() }
        let now = clock.now()
        core.linkEstablished()
        perform(policy.established(now: now))
        perform(core.resume(now: now))
    }

    /// A message from the device: any decryptable one proves the connection and the key;
    /// one that carries DPs (a STATUS push, a query answer) is a report.
    private func handle(_ message: LANMessage) {
        // An empty frame where the address is not proven neither keeps the connection alive
        // nor makes the device online; a payload that decrypted proves the key.
        guard proof.counts(payload: message.payload, at: endpoint.ip) else { return }
        if !message.payload.isEmpty { keyProven() }
        let now = clock.now()
        core.heard(at: Date(timeIntervalSince1970: TimeInterval(unixTime())))
        perform(policy.received(now: now))
        if !usesDevice22Query, message.command == version.queryCommand,
            LANDataPoints.asksForDevice22Query(message.payload)
        {
            usesDevice22Query = true
            sendStatusQuery()
            return
        }
        let dps: [String: JSONValue]?
        do throws(WireError) {
            dps = try LANDataPoints.dps(in: message.payload)
        } catch {
            unreadableReports += 1
            return
        }
        guard let dps else { return }
        let values = DataPointJSON.decode(dps, profile: core.mapper.profile).values
        perform(core.receive(report: values, now: now))
        if !probes.isEmpty { finishProbes(.answered(Set(dps.keys.compactMap { DataPointID(jsonKey: $0) }))) }
    }

    /// The device proved the key on this connection: its address, if learned from a
    /// broadcast, is now the one to go back to, and saved.
    private func keyProven() {
        if proof.keyProven(at: endpoint.ip) { onAddressProven(endpoint) }
    }

    /// The connection failed: at an address learned from a broadcast where the device never
    /// proved the key, the next attempt goes back to where it last did.
    private func returnToProvenAddress() {
        guard !isStopped, let proven = proof.failed(at: endpoint.ip, now: clock.now()) else { return }
        logger.warning(
            "LAN device \(core.device.id.rawValue): \(endpoint.ip), heard in a broadcast, did not prove the local key; back to \(proven)"
        )
        endpoint.ip = proven
    }
}
