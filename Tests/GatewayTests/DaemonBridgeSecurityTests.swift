import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import Synchronization
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import Gateway

/// The bridge's security through the whole daemon on a real mosquitto: local keys sealed to
/// the key in `bridge/info`, admin verbs signed with the token in the state directory, `/set`
/// open, and client ids another client cannot take over.
@Suite("Bridge security through the daemon", .serialized, .timeLimit(.minutes(3)))
struct DaemonBridgeSecurityTests {
    static let timeout = Duration.seconds(20)
    /// An intruder that does not come back: with the bridge's own id, reconnecting would knock
    /// the bridge off again each time it returned (a second takeover).
    static let once = Backoff(initial: .seconds(3600), maximum: .seconds(3600))

    static func stateDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("youll-security-\(UUID().uuidString)")
    }

    static func light(on broker: LocalBroker, seed: UInt64) async throws -> SimulatorFleet {
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: seed), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: timeout))
        return fleet
    }

    /// Sends `payload` exactly as given (no sealing, no signing); the daemon's answer or its refusal.
    static func raw(
        _ client: BridgeClient, _ verb: String, _ payload: [String: JSONValue]
    ) async -> Result<JSONValue, BridgeClientError> {
        do throws(BridgeClientError) {
            return .success(
                try await client.exchange(
                    verb: verb, publishTopic: "youll/bridge/request/\(verb)", payload: payload, timeout: timeout))
        } catch {
            return .failure(error)
        }
    }

    static func message(_ result: Result<JSONValue, BridgeClientError>) -> String {
        switch result {
        case .success: "ok"
        case .failure(let error): error.description
        }
    }

    static func token(in state: URL) throws -> BridgeToken {
        try BridgeToken.read(path: state.appendingPathComponent("bridge-token").path)
    }

    @Test("a key sealed by the client pairs the device; neither the key nor the token crosses the broker in clear")
    func sealedKeyPairs() async throws {
        let broker = try await LocalBroker.started()
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.light(on: broker, seed: 41)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)
        let spy = try BridgeClient(configuration: daemonConfiguration(state: state, brokerPort: broker.port))
        try await spy.connect(timeout: Self.timeout)
        let everything = try await spy.subscribe(["#"])
        let seen = Mutex<[UInt8]>([])
        let recorder = Task {
            for await message in everything { seen.withLock { $0 += Array(message.topic.utf8) + message.payload } }
        }

        try await withRunningDaemon(
            broker: broker, state: state, configure: { $0.mqtt.username = "gateway-user" }
        ) { daemon in
            let added = try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "lamp")
            #expect(added["friendly_name"] == .string("lamp"))
            let switched = try await daemon.client.set(
                device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
            #expect(switched["state"]?["state"] == .string("ON"))

            let info = try #require(try await daemon.client.retained("youll/bridge/info", timeout: Self.timeout)?.json)
            let publicKey = try #require(info["public_key"]?.stringValue)
            #expect(Data(base64Encoded: publicKey)?.count == 32)
            #expect(info["auth"] == .bool(true))
            let text = String(decoding: CompactJSON.encode(info), as: UTF8.self)
            #expect(!text.contains("gateway-user"), "bridge/info names the MQTT user: \(text)")
        }
        await spy.close()
        recorder.cancel()

        let token = try Self.token(in: state)
        let crossed = String(decoding: seen.withLock { $0 }, as: UTF8.self)
        #expect(crossed.contains("sealed_local_key"), "the spy saw the pairing request")
        #expect(!crossed.contains(identity.localKey), "the local key crossed the broker in clear")
        #expect(!crossed.contains(Hex.string(token.bytes)), "the token crossed the broker")
        for file in ["bridge-token", "bridge-key", "client-id"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: state.appendingPathComponent(file).path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(file) is not mode 0600")
        }
    }

    @Test("a local key sent in clear is refused, naming bridge.accept_clear_keys; with it set, the device pairs")
    func clearKeyRefused() async throws {
        let broker = try await LocalBroker.started()
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.light(on: broker, seed: 42)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)
        let request: [String: JSONValue] = [
            "id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string("lamp"),
            "transaction": .string("clear-1"),
        ]
        try await withRunningDaemon(broker: broker, state: state) { daemon in
            let signed = BridgeAuthentication.sign(
                verb: "device/add", payload: request, token: try Self.token(in: state),
                time: Int64(Date().timeIntervalSince1970))
            let refused = Self.message(await Self.raw(daemon.client, "device/add", signed))
            #expect(refused.contains("local_key: refused"), "\(refused)")
            #expect(refused.contains("bridge.accept_clear_keys: true"), "\(refused)")
            #expect(!refused.contains(identity.localKey))
            #expect(try await daemon.client.devices(timeout: Self.timeout).isEmpty)
        }
        try await withRunningDaemon(
            broker: broker, state: state, configure: { $0.bridge.acceptClearKeys = true }
        ) { daemon in
            let signed = BridgeAuthentication.sign(
                verb: "device/add", payload: request, token: try Self.token(in: state),
                time: Int64(Date().timeIntervalSince1970))
            let added = try await Self.raw(daemon.client, "device/add", signed).get()
            #expect(added["friendly_name"] == .string("lamp"))
        }
    }

    @Test("unsigned, forged, stale and replayed admin requests are refused with the reason; /set stays open")
    func adminVerbsNeedSignatures() async throws {
        let broker = try await LocalBroker.started()
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.light(on: broker, seed: 43)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)
        let port = ListeningPort()
        try await withRunningDaemon(
            broker: broker, state: state, hooks: .init(metricsListening: { port.set($0) }),
            configure: { $0.metrics.enabled = true }
        ) { daemon in
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "lamp")
            let token = try Self.token(in: state)
            let now = Int64(Date().timeIntervalSince1970)
            let rename: [String: JSONValue] = [
                "from": .string("lamp"), "to": .string("desk"), "transaction": .string("rename-1"),
            ]

            let unsigned = Self.message(await Self.raw(daemon.client, "device/rename", rename))
            #expect(unsigned.hasPrefix("device/rename: request not signed:"), "\(unsigned)")
            #expect(unsigned.contains(state.appendingPathComponent("bridge-token").path), "\(unsigned)")

            let forged = BridgeAuthentication.sign(
                verb: "device/rename", payload: rename, token: BridgeToken(bytes: Array(repeating: 1, count: 32)),
                time: now)
            #expect(Self.message(await Self.raw(daemon.client, "device/rename", forged)).contains("bad signature"))

            let stale = BridgeAuthentication.sign(verb: "device/rename", payload: rename, token: token, time: now - 300)
            let staleMessage = Self.message(await Self.raw(daemon.client, "device/rename", stale))
            #expect(staleMessage.contains("auth.time is"), "\(staleMessage)")
            #expect(staleMessage.contains("behind"), "\(staleMessage)")

            // The token and the key never appear in an answer.
            for answer in [unsigned, staleMessage] { #expect(!answer.contains(Hex.string(token.bytes))) }

            #expect(try await daemon.client.devices(timeout: Self.timeout).map(\.friendlyName) == ["lamp"])
            let switched = try await daemon.client.set(
                device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
            #expect(switched["state"]?["state"] == .string("ON"))

            let signed = BridgeAuthentication.sign(verb: "device/rename", payload: rename, token: token, time: now)
            _ = try await Self.raw(daemon.client, "device/rename", signed).get()
            let replayed = Self.message(await Self.raw(daemon.client, "device/rename", signed))
            #expect(replayed.hasPrefix("device/rename: replayed request"), "\(replayed)")
            #expect(try await daemon.client.devices(timeout: Self.timeout).map(\.friendlyName) == ["desk"])
            let metrics = try await HTTPScrape.get(port: try #require(port.port), path: "/metrics").body
            for reason in ["unsigned", "bad_signature", "stale", "replayed"] {
                let series = #"youll_bridge_requests_refused_total{reason=""# + reason + #""}"#
                #expect(HTTPScrape.sample(series, in: metrics) == 1, "\(series)")
            }
        }
    }

    @Test("client ids carry a per-install suffix, stable across restarts; the well-known id cannot kick the bridge")
    func clientIDSuffix() async throws {
        let broker = try await LocalBroker.started()
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let suffixFile = state.appendingPathComponent("client-id").path
        let first = try await withRunningDaemon(broker: broker, state: state) { daemon in
            // A client connecting with the id every gateway used to have changes nothing.
            let intruder = try MQTTClient(
                configuration: MQTTConfiguration(
                    host: "127.0.0.1", port: broker.port, clientID: "youll-devices-youll", reconnect: Self.once))
            try await intruder.connect()
            await intruder.close()
            let health = try await daemon.client.request("health_check", timeout: Self.timeout)
            #expect(health["broker"] == .string("connected"))
            return try String(contentsOfFile: suffixFile, encoding: .utf8)
        }
        let suffix = first.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(suffix.utf8.count == 8 && Hex.bytes(suffix) != nil, "suffix \(suffix)")
        var configuration = daemonConfiguration(state: state, brokerPort: broker.port)
        configuration.mqtt.clientIDSuffix = suffix
        #expect(configuration.effectiveClientID == "youll-devices-youll-\(suffix)")

        let port = ListeningPort()
        try await withRunningDaemon(
            broker: broker, state: state, hooks: .init(metricsListening: { port.set($0) }),
            configure: { $0.metrics.enabled = true }
        ) { daemon in
            #expect(try String(contentsOfFile: suffixFile, encoding: .utf8) == first, "the suffix changed on restart")
            // A client using the bridge's own id takes its session over: logged and counted.
            let states = try await daemon.client.subscribe(["youll/bridge/state"])
            let intruder = try MQTTClient(
                configuration: MQTTConfiguration(
                    host: "127.0.0.1", port: broker.port, clientID: configuration.effectiveClientID,
                    reconnect: Self.once))
            try await intruder.connect()
            await intruder.close()
            // The bridge comes back on its own and says so again (live, not retained).
            _ = try await states.first(within: 20, "the bridge online again") {
                !$0.retained && $0.availability == "online"
            }
            _ = try await daemon.client.request("health_check", timeout: Self.timeout)
            let metrics = try await HTTPScrape.get(port: try #require(port.port), path: "/metrics")
            #expect(
                HTTPScrape.sample(#"youll_broker_session_takeovers_total{connection="bridge"}"#, in: metrics.body) == 1)
        }
    }
}
