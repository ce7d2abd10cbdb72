import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire

/// Plays the gateway in integration tests: one swarm client on its own swarm (its own
/// thread), subscribed to every device's out topic, decrypting what arrives with the
/// keys it was given. Confined to its swarm thread like every peer.
final class GatewayProbe: SwarmPeer {
    struct Received: Sendable {
        let payload: [UInt8]
        /// Nil when the frame did not decrypt with the device's key.
        let dps: [String: JSONValue]?
    }

    let clientID: String
    let subscriptions = ["smart/device/out/+"]
    private let keys: [String: AESKey]
    private let mark: @Sendable ([String: JSONValue]) -> Bool
    private(set) var received: [String: [Received]] = [:]
    /// Devices that sent at least one decryptable report `mark` accepted.
    private(set) var marked: Set<String> = []

    init(keys: [String: AESKey], mark: @escaping @Sendable ([String: JSONValue]) -> Bool) {
        clientID = "youll-test-gateway-\(UInt32.random(in: 0...UInt32.max))"
        self.keys = keys
        self.mark = mark
    }

    func didConnect(_ context: SwarmContext) {}

    func didReceive(topic: String, payload: [UInt8], _ context: SwarmContext) {
        let devId = String(topic.dropFirst("smart/device/out/".count))
        var dps: [String: JSONValue]?
        if let key = keys[devId], let frame = try? MQTTFrame.decode(payload, key: key),
            case .report(_, let values, _)? = try? TuyaEnvelope.decode(frame.body).envelope
        {
            dps = values
        }
        received[devId, default: []].append(Received(payload: payload, dps: dps))
        if let dps, mark(dps) { marked.insert(devId) }
    }
}

/// The test's handle on a running probe.
struct Gateway: Sendable {
    let swarm: MosquittoSwarm

    static func start(
        port: Int, fleet: SimulatorFleet, mark: @escaping @Sendable ([String: JSONValue]) -> Bool = { _ in true }
    ) async throws -> Gateway {
        var keys: [String: AESKey] = [:]
        for identity in fleet.identities { keys[identity.devId] = try AESKey(localKey: identity.localKey) }
        let swarm = try MosquittoSwarm(
            configuration: SwarmConfiguration(port: port, reconnectDelay: .milliseconds(20) ... .milliseconds(200)))
        let probeKeys = keys
        _ = try await swarm.add { [GatewayProbe(keys: probeKeys, mark: mark)] }
        try swarm.start()
        let connected = await swarm.waitUntilConnected(timeout: .seconds(10))
        try #require(connected, "the test gateway did not connect")
        return Gateway(swarm: swarm)
    }

    /// Publishes on `smart/device/in/<devId>` at QoS 1.
    func send(_ payload: [UInt8], to devId: String) async {
        let sent = await swarm.perform { engine in
            engine.context(for: 0).publish(topic: "smart/device/in/\(devId)", payload: payload)
        }
        #expect(sent, "publish to \(devId) failed")
    }

    /// Everything `devId` published, once there are at least `count` messages; nil at the timeout.
    func messages(from devId: String, count: Int = 1, timeout: Duration = .seconds(5)) async -> [GatewayProbe.Received]?
    {
        await swarm.waitUntil(timeout: timeout) { engine in
            guard let probe = engine.peer(at: 0) as? GatewayProbe else { return nil }
            let messages = probe.received[devId] ?? []
            return messages.count >= count ? messages : nil
        }
    }

    /// The first message from `devId` that matches `predicate`; nil at the timeout.
    func firstMessage(
        from devId: String, timeout: Duration = .seconds(5),
        where predicate: @escaping @Sendable (GatewayProbe.Received) -> Bool
    ) async -> GatewayProbe.Received? {
        await swarm.waitUntil(timeout: timeout) { engine in
            guard let probe = engine.peer(at: 0) as? GatewayProbe else { return nil }
            return probe.received[devId]?.first(where: predicate)
        }
    }

    /// How many devices sent a marked report, once at least `count` did; nil at the timeout.
    func markedDevices(atLeast count: Int, timeout: Duration) async -> Set<String>? {
        await swarm.waitUntil(timeout: timeout) { engine in
            guard let probe = engine.peer(at: 0) as? GatewayProbe else { return nil }
            return probe.marked.count >= count ? probe.marked : nil
        }
    }
}
