import TuyaCore
import TuyaWire

/// One simulated Tuya device on the LAN protocol, as a pure state machine: the shared
/// device model (`SimulatedDevice`: DP rules, diffuser water and timer, misbehaviour)
/// behind a Tuya LAN front (protocol/TUYA.md §2). Bytes, connections and time go in;
/// actions come out for `LANDeviceHost` to perform on sockets.
///
/// Like firmware it holds one client at a time and refuses a second connection; it
/// answers heartbeats at once, acknowledges CONTROL/CONTROL_NEW at once and confirms the
/// written values with a STATUS push when the model reports them, answers DP_QUERY /
/// DP_QUERY_NEW (and a device22 query) in a frame of the query's command, and pushes
/// STATUS when the model changes by itself. With `Misbehaviour.wrongKey` set, the next
/// connection is served under that key, so a client sees frames it cannot open.
public struct SimulatedLANDevice: Sendable {
    public enum Action: Hashable, Sendable {
        /// Write these bytes to the connected client.
        case send([UInt8])
        /// Close the client connection (a broken session).
        case closeConnection
        /// Stop listening, drop the client and stop broadcasting: the device is off the network.
        case goDark
        /// Listen and broadcast again.
        case comeBack
    }

    /// What the LAN front did, for tests and the demo.
    public struct Statistics: Hashable, Sendable {
        public var connectionsAccepted = 0
        public var connectionsRefused = 0
        /// Frames that did not open under the device's key.
        public var framesRejected = 0
        /// Sessions ended by garbage or a failed handshake.
        public var sessionsFailed = 0
        public var heartbeatsAnswered = 0
        public var queriesAnswered = 0
        public var statusPushes = 0
        public var broadcastsSent = 0
    }

    public let devId: String
    public let version: LANProtocolVersion
    public internal(set) var model: SimulatedDevice
    public private(set) var ip: String
    public private(set) var statistics = Statistics()
    public private(set) var isConnected = false
    private let localKey: String
    private var session: LANDeviceSession?
    private var random: SeededGenerator
    /// Commands to answer the model's next query reports with, oldest first.
    private var pendingQueries: [LANCommand] = []

    public init(model: SimulatedDevice, localKey: String, version: LANProtocolVersion, ip: String, seed: UInt64) {
        self.model = model
        self.localKey = localKey
        self.version = version
        self.ip = ip
        devId = model.devId
        random = SeededGenerator(seed: seed)
    }

    public var isOnline: Bool { model.isOnline }
    public var nextDeadline: Duration? { model.nextDeadline }

    // MARK: - Connections

    /// A client connected. Returns false when the device already holds one: the caller
    /// closes the new connection, as firmware does.
    public mutating func accept(at time: Duration) -> (accepted: Bool, actions: [Action]) {
        let actions = advance(to: time)
        guard model.isOnline, !isConnected else {
            statistics.connectionsRefused += 1
            return (false, actions)
        }
        let keyText = model.misbehaviour.wrongKey ?? localKey
        guard let key = try? AESKey(localKey: keyText) else {
            statistics.connectionsRefused += 1
            return (false, actions)
        }
        isConnected = true
        statistics.connectionsAccepted += 1
        pendingQueries.removeAll()
        session = LANDeviceSession(
            version: version, localKey: key, random: SeededGenerator(seed: random.next()),
            firstSequence: UInt32(truncatingIfNeeded: random.next() & 0xFFFF))
        return (true, actions)
    }

    /// The client connection ended.
    public mutating func connectionClosed() {
        isConnected = false
        session = nil
        pendingQueries.removeAll()
    }

    /// Bytes from the connected client.
    public mutating func receive(_ bytes: [UInt8], at time: Duration) -> [Action] {
        var actions = advance(to: time)
        // Mutated in place: a copy taken out of the optional would copy the session's buffers too.
        guard isConnected, let events = session?.receive(bytes) else { return actions }
        for event in events {
            switch event {
            case .send(let answer): actions.append(.send(answer))
            case .established: break
            case .request(let request): actions += handle(request, at: time)
            case .rejected(let command, let error): actions += reject(command, error)
            case .failed:
                statistics.sessionsFailed += 1
                connectionClosed()
                return actions + [.closeConnection]
            }
        }
        return actions
    }

    // MARK: - Time and the model

    /// Moves time on: model reports become STATUS pushes or query answers.
    public mutating func advance(to time: Duration) -> [Action] {
        translate(model.advance(to: time))
    }

    public mutating func setMisbehaviour(_ misbehaviour: Misbehaviour) {
        model.misbehaviour = misbehaviour
    }

    public mutating func goOffline(at time: Duration, for duration: Duration? = nil) -> [Action] {
        translate(model.goOffline(at: time, for: duration))
    }

    public mutating func comeOnline(at time: Duration) -> [Action] {
        translate(model.comeOnline(at: time))
    }

    public mutating func refill(at time: Duration) -> [Action] {
        translate(model.refill(at: time))
    }

    /// Takes a new address (a DHCP change): the caller closes everything and listens
    /// again on `ip`.
    public mutating func move(to ip: String) {
        self.ip = ip
        connectionClosed()
    }

    // MARK: - Discovery

    /// What the device announces (protocol/TUYA.md §2.1).
    public var broadcast: LANBroadcast {
        LANBroadcast(
            gwId: devId, ip: ip, version: version.rawValue, productKey: model.profile.productIDs.first ?? "",
            encrypt: true, active: 2, ability: 0, token: true, wifiConfigured: true)
    }

    /// The periodic announcement datagram, in the form this version broadcasts.
    public mutating func announcement() -> [UInt8]? {
        guard model.isOnline else { return nil }
        let nonce = (0..<12).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let format = LANDiscovery.Format(version: version)
        guard let datagram = try? LANDiscovery.encode(broadcast, format: format, nonce: nonce) else { return nil }
        statistics.broadcastsSent += 1
        return datagram
    }

    /// A 3.5 device answers an app's solicitation with its GCM announcement; older
    /// versions do not listen for it.
    public mutating func answer(_ solicitation: LANSolicitation) -> [UInt8]? {
        guard version.usesGCMFrames else { return nil }
        return announcement()
    }

    // MARK: - Requests

    private mutating func handle(_ request: LANMessage, at time: Duration) -> [Action] {
        switch request.command {
        case .heartBeat:
            statistics.heartbeatsAnswered += 1
            return reply(.heartBeat, json: [])
        case .dpQuery, .dpQueryNew:
            return query(nil, answerWith: request.command, at: time)
        case .updateDPs:
            let ids = (try? CompactJSON.decode(request.payload))?["dpId"].flatMap(Self.integers)
            return query(ids ?? [], answerWith: .status, at: time)
        case .control, .controlNew:
            guard let dps = try? LANDataPoints.dps(in: request.payload) else {
                return reply(request.command, retcode: 1, json: LANDeviceReply.invalidRequest)
            }
            if !version.negotiatesSessionKey, request.command == .controlNew, !dps.isEmpty,
                dps.values.allSatisfy({ $0 == .null })
            {
                // device22: a CONTROL_NEW naming DPs with null values is a query.
                return query(dps.keys.compactMap { Int($0) }.sorted(), answerWith: .controlNew, at: time)
            }
            return control(dps, command: request.command, at: time)
        default:
            return reply(request.command, retcode: 1, json: LANDeviceReply.invalidRequest)
        }
    }

    /// Writes through the model; acknowledges unless the model dropped or did not hear
    /// the frame (drop share, flooding), and the model's report becomes the STATUS push.
    private mutating func control(_ dps: [String: JSONValue], command: LANCommand, at time: Duration) -> [Action] {
        let before = model.statistics
        let reports = model.receive(envelope: .command(dps: dps), at: time)
        guard heard(since: before) else { return translate(reports) }
        return reply(command, json: []) + translate(reports)
    }

    private mutating func query(_ ids: [Int]?, answerWith command: LANCommand, at time: Duration) -> [Action] {
        let before = model.statistics
        pendingQueries.append(command)
        let reports = model.receive(envelope: .query(dpIDs: ids), at: time)
        if model.statistics.queriesAnswered == before.queriesAnswered { pendingQueries.removeLast() }
        return translate(reports)
    }

    private func heard(since before: SimulatedDevice.Statistics) -> Bool {
        let after = model.statistics
        return model.isOnline && after.framesDropped == before.framesDropped
            && after.framesFlooded == before.framesFlooded
    }

    /// A frame that did not open: up to 3.3 the device answers in its own key, so a client
    /// with the wrong key sees a reply it cannot read; 3.4/3.5 stay silent.
    private mutating func reject(_ command: LANCommand, _ error: WireError) -> [Action] {
        statistics.framesRejected += 1
        guard !version.negotiatesSessionKey, command != .sessionKeyStart else { return [] }
        return reply(command, retcode: 1, json: LANDeviceReply.invalidRequest)
    }

    private mutating func reply(_ command: LANCommand, retcode: UInt32 = 0, json: [UInt8]) -> [Action] {
        guard let bytes = try? session?.encode(command, retcode: retcode, json: json) else { return [] }
        return [.send(bytes)]
    }

    /// Model actions in LAN terms.
    private mutating func translate(_ actions: [SimulatedDevice.Action]) -> [Action] {
        var out: [Action] = []
        for action in actions {
            switch action {
            case .publish(let report): out += push(report)
            case .disconnect:
                connectionClosed()
                out.append(.goDark)
            case .connect: out.append(.comeBack)
            }
        }
        return out
    }

    private mutating func push(_ report: SimulatedDevice.Report) -> [Action] {
        let dps = DataPointJSON.encode(report.dataPoints)
        let command = report.cause == .query && !pendingQueries.isEmpty ? pendingQueries.removeFirst() : .status
        guard isConnected else { return [] }
        if command == .status {
            statistics.statusPushes += 1
            return reply(
                .status,
                json: LANDeviceReply.status(version: version, devId: devId, dps: dps, timestamp: report.timestamp))
        }
        statistics.queriesAnswered += 1
        return reply(
            command, json: LANDeviceReply.dps(version: version, devId: devId, dps: dps, timestamp: report.timestamp))
    }

    private static func integers(_ value: JSONValue) -> [Int]? {
        guard case .array(let elements) = value else { return nil }
        return elements.compactMap { $0.int64Value.flatMap { Int(exactly: $0) } }
    }
}
