import LANLink
import Synchronization
import TuyaCore
import TuyaWire

/// A Tuya LAN device in memory for `LANDeviceLink` tests on a manual clock: the device
/// side of the real protocol (`LANDeviceSession`: handshake, encryption, frames) over a
/// byte stream instead of TCP, with a plain dictionary of DP values. It answers queries
/// and heartbeats, applies CONTROL / CONTROL_NEW and pushes the written values as STATUS,
/// like firmware. Switches make it refuse connections, go silent or hold another key.
final class InMemoryLANDevice: LANConnector, Sendable {
    struct Switches: Sendable {
        var refuse = false
        var silent = false
        /// Answers with this key instead of the real one (a key mismatch as the gateway sees it).
        var keyOverride: String?
        /// Drops the connection after this many requests.
        var closeAfterRequests: Int?
        /// Answers every frame, even one it cannot open, with an empty frame of its command:
        /// what a host without the key can send (a CRC needs none).
        var answersEmpty = false
    }

    struct Statistics: Sendable, Hashable {
        var connections = 0
        /// Connections asked for, refused ones included.
        var attempts = 0
        var requests: [LANCommand] = []
        var controls: [[String: JSONValue]] = []
        /// The address of each connection, in order.
        var hosts: [String] = []
    }

    let devId: String
    let version: LANProtocolVersion
    private let key: AESKey
    private let state: Mutex<(dps: [String: JSONValue], switches: Switches, statistics: Statistics)>

    /// `key` must be 16 characters (test code only).
    init(devId: String, key: String, version: LANProtocolVersion, dps: [String: JSONValue]) throws {
        self.devId = devId
        self.key = try AESKey(localKey: key)
        self.version = version
        state = Mutex((dps, Switches(), Statistics()))
    }

    var statistics: Statistics { state.withLock { $0.statistics } }
    fileprivate var answersEmptyToAll: Bool { state.withLock { $0.switches.answersEmpty } }
    var dps: [String: JSONValue] { state.withLock { $0.dps } }

    func update(_ change: (inout Switches) -> Void) {
        state.withLock { change(&$0.switches) }
    }

    func connect(host: String, port: Int, timeout: Duration) async throws(LANConnectError) -> any LANByteStream {
        let switches = state.withLock { state in
            state.statistics.attempts += 1
            if !state.switches.refuse { state.statistics.connections += 1 }
            return state.switches
        }
        if switches.refuse { throw .refused(host: host) }
        let sessionKey = switches.keyOverride.flatMap { try? AESKey(localKey: $0) } ?? key
        state.withLock { $0.statistics.hosts.append(host) }
        return Connection(device: self, session: LANDeviceSession(version: version, localKey: sessionKey))
    }

    /// What the device does with one request; returns the frames to send back.
    fileprivate func answer(_ message: LANMessage, session: inout LANDeviceSession) -> [[UInt8]] {
        let (switches, count) = state.withLock { state in
            state.statistics.requests.append(message.command)
            return (state.switches, state.statistics.requests.count)
        }
        if switches.silent { return [] }
        if switches.answersEmpty { return (try? session.encode(message.command, json: [])).map { [$0] } ?? [] }
        if let limit = switches.closeAfterRequests, count > limit { return [] }
        var replies: [[UInt8]] = []
        func reply(_ command: LANCommand, _ json: [UInt8]) {
            if let frame = try? session.encode(command, json: json) { replies.append(frame) }
        }
        switch message.command {
        case .heartBeat:
            reply(.heartBeat, [])
        case .dpQuery, .dpQueryNew:
            reply(message.command, LANDeviceReply.dps(version: version, devId: devId, dps: dps, timestamp: 1))
        case .control, .controlNew:
            let written = ((try? LANDataPoints.dps(in: message.payload)) ?? nil) ?? [:]
            state.withLock { state in
                state.dps.merge(written) { _, new in new }
                state.statistics.controls.append(written)
            }
            reply(message.command, [])
            reply(.status, LANDeviceReply.status(version: version, devId: devId, dps: written, timestamp: 1))
        default:
            break
        }
        return replies
    }

    /// The device's end of one connection, seen from the gateway as a byte stream.
    final class Connection: LANByteStream, Sendable {
        let bytes: AsyncStream<[UInt8]>
        private let toGateway: AsyncStream<[UInt8]>.Continuation
        private let device: InMemoryLANDevice
        private let session: Mutex<LANDeviceSession>

        init(device: InMemoryLANDevice, session: LANDeviceSession) {
            self.device = device
            self.session = Mutex(session)
            (bytes, toGateway) = AsyncStream.makeStream(of: [UInt8].self)
        }

        func write(_ frame: [UInt8]) {
            let replies = session.withLock { session -> [[UInt8]] in
                var replies: [[UInt8]] = []
                for event in session.receive(frame) {
                    switch event {
                    case .send(let bytes): replies.append(bytes)
                    case .request(let message): replies += device.answer(message, session: &session)
                    case .rejected(let command, _) where device.answersEmptyToAll:
                        // A host without the key: it cannot read the frame, and answers empty.
                        if let frame = try? session.encode(command, json: []) { replies.append(frame) }
                    case .established, .rejected, .failed: continue
                    }
                }
                return replies
            }
            for reply in replies { toGateway.yield(reply) }
            if let limit = device.state.withLock({ $0.switches.closeAfterRequests }),
                device.statistics.requests.count > limit
            {
                toGateway.finish()
            }
        }

        func close() {
            toGateway.finish()
        }
    }
}
