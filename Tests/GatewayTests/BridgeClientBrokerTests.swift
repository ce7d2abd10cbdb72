import Crypto
import Foundation
@testable import Gateway
import LocalBroker
import MQTTLink
import Synchronization
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Real parts: a private mosquitto (LocalBroker) and the real `BridgeClient`; the test plays
/// the daemon's side of the bridge API with its own MQTT client.
@Suite("Bridge client against a real broker")
struct BridgeClientBrokerTests {
    let wait = Duration.seconds(10)

    @Test(
        "no retained bridge/state on a broker that just started says so: a running daemon may not have republished yet, or none runs; known without waiting for a timeout"
    )
    func daemonNeverStarted() async throws {
        let broker = try await LocalBroker.started()
        // A clock nobody advances: only the broker's answers can end the wait.
        let client = try BridgeClient(configuration: configuration(broker), clock: ManualClock())
        try await client.connect(timeout: wait)
        do {
            try await client.requireDaemonOnline(timeout: wait)
            Issue.record("a daemon was reported online on an empty broker")
        } catch {
            guard case .daemonNotRepublished(let topic, let uptime) = error else {
                Issue.record("expected daemonNotRepublished, got \(error)")
                return
            }
            #expect(topic == "youll/bridge/state")
            #expect((0..<BridgeClient.recentBrokerStart).contains(uptime))
            #expect(error.description.contains("since the broker started \(uptime) s ago"))
            #expect(error.description.contains("try again"))
            #expect(error.description.contains("youll-devices serve"))
        }
        await client.close()
    }

    @Test("a retained offline state (the daemon's last will) means the daemon is not running")
    func daemonOffline() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker, state: #"{"state":"offline"}"#)
        let client = try await connectedClient(broker)
        await #expect(throws: BridgeClientError.daemonNotRunning(stateTopic: "youll/bridge/state", found: "is offline"))
        {
            try await client.requireDaemonOnline(timeout: wait)
        }
        await client.close()
        await daemon.stop()
    }

    @Test("a request is answered by the response with its transaction; another transaction's is skipped")
    func requestMatchesTransaction() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker) { verb, request in
            guard verb == "device/add", let transaction = request["transaction"] else { return [] }
            return [
                // Another client's answer arrives first and must not be taken for ours.
                .object([
                    "status": .string("error"), "error": .string("not yours"), "transaction": .string("someone-else"),
                ]),
                .object([
                    "status": .string("ok"), "transaction": transaction,
                    "data": .object(["id": request["id"] ?? .null, "friendly_name": request["name"] ?? .null]),
                ]),
            ]
        }
        let client = try await connectedClient(broker)
        try await client.requireDaemonOnline(timeout: wait)
        let data = try await client.request(
            "device/add", ["id": .string("bf01"), "local_key": .string("0123456789abcdef"), "name": .string("lamp")],
            timeout: wait)
        #expect(data == .object(["id": .string("bf01"), "friendly_name": .string("lamp")]))
        let seen = await daemon.requests
        #expect(seen.count == 1)
        // The key crossed the broker sealed to the daemon's key, and only the daemon opens it.
        #expect(seen.first?.1["local_key"] == nil)
        let sealed = try #require(seen.first?.1["sealed_local_key"]?.stringValue)
        #expect(
            try SealedLocalKey.open(sealed, verb: "device/add", device: "bf01", with: daemon.privateKey)
                == "0123456789abcdef")
        await client.close()
        await daemon.stop()
    }

    @Test("eight requests in flight at once each get their own answer")
    func concurrentRequests() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker) { _, request in
            [
                .object([
                    "status": .string("ok"), "transaction": request["transaction"] ?? .null,
                    "data": .object(["id": request["id"] ?? .null]),
                ])
            ]
        }
        let client = try await connectedClient(broker)
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await client.request("device/add", ["id": .string("bf\(index)")], timeout: wait)["id"]?
                        .stringValue
                }
            }
            return try await group.reduce(into: Set<String>()) { if let id = $1 { $0.insert(id) } }
        }
        #expect(ids == Set((0..<8).map { "bf\($0)" }))
        await client.close()
        await daemon.stop()
    }

    @Test("the daemon's error is reported in its own words")
    func requestFails() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker) { _, request in
            [
                .object([
                    "status": .string("error"), "error": .string("device/add: local_key: must be 16 characters"),
                    "transaction": request["transaction"] ?? .null,
                ])
            ]
        }
        let client = try await connectedClient(broker)
        await #expect(
            throws: BridgeClientError.requestFailed(
                verb: "device/add", message: "device/add: local_key: must be 16 characters")
        ) {
            try await client.request(
                "device/add", ["id": .string("bf01"), "local_key": .string("short")], timeout: wait)
        }
        // Shown to a CLI user without the API's routing prefix.
        let shown = BridgeClientError.requestFailed(
            verb: "device/add", message: "device/add: local_key: must be 16 characters")
        #expect(shown.userMessage == "local_key: must be 16 characters")
        #expect(shown.description == "device/add: local_key: must be 16 characters")
        await client.close()
        await daemon.stop()
    }

    @Test("a garbage response is reported as malformed, naming the response topic")
    func garbageResponse() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.startRaw(broker) { _, _ in [Array("\u{1B}]0;pwned\u{07}<html>".utf8)] }
        let client = try await connectedClient(broker)
        do {
            _ = try await client.request("health_check", [:], timeout: wait)
            Issue.record("a garbage response was accepted")
        } catch {
            guard case .malformedResponse(let topic, let reason) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(topic == "youll/bridge/response/health_check")
            #expect(reason.hasPrefix("not JSON"))
            #expect(!error.description.contains("\u{1B}"))
        }
        await client.close()
        await daemon.stop()
    }

    @Test("a request nobody answers times out naming the response topic")
    func requestTimesOut() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker) { _, _ in [] }
        let clock = ManualClock()
        let client = try BridgeClient(configuration: configuration(broker), clock: clock)
        try await client.connect(timeout: wait)
        let pending = Task { try await client.request("device/refresh", ["id": .string("lamp")], timeout: .seconds(3)) }
        // The daemon has the request; now let the client's time run out.
        try await daemon.waitForRequests(1)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(3))
        await #expect(
            throws: BridgeClientError.timedOut(
                waitingFor: "a response on youll/bridge/response/device/refresh", after: .seconds(3))
        ) {
            try await pending.value
        }
        await client.close()
        await daemon.stop()
    }

    @Test("set publishes on <base>/<name>/set and returns the confirmed state from device/set")
    func setDevice() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker, devices: #"[{"id":"bf01","friendly_name":"desk lamp"}]"#) {
            topic, request in
            guard topic == "youll/desk lamp/set" else { return [] }
            return [
                .object([
                    "status": .string("ok"), "transaction": request["transaction"] ?? .null,
                    "data": .object(["state": .string("ON"), "brightness": request["brightness"] ?? .null]),
                ])
            ]
        }
        let client = try await connectedClient(broker)
        let devices = try await client.devices(timeout: wait)
        let lamp = try BridgeDevice.resolve("bf01", in: devices)
        let state = try await client.set(
            device: lamp.friendlyName, payload: ["brightness": .integer(40)], timeout: wait)
        #expect(state == .object(["state": .string("ON"), "brightness": .integer(40)]))
        await client.close()
        await daemon.stop()
    }

    @Test("retained topics are read without waiting; a topic with nothing retained gives nil at once")
    func retained() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker, devices: #"[{"id":"bf01","friendly_name":"lamp"}]"#)
        try await daemon.publish("youll/lamp", #"{"state":"ON","brightness":40}"#, retain: true)
        try await daemon.publish("youll/lamp/availability", #"{"state":"online"}"#, retain: true)
        let client = try BridgeClient(configuration: configuration(broker), clock: ManualClock())
        try await client.connect(timeout: wait)
        let state = try await client.retained("youll/lamp", timeout: wait)
        #expect(state?.json == .object(["state": .string("ON"), "brightness": .integer(40)]))
        #expect(try await client.retained("youll/kitchen", timeout: wait) == nil)
        let many = try await client.retained(matching: ["youll/bridge/devices", "youll/+/availability"], timeout: wait)
        #expect(Set(many.map(\.topic)) == ["youll/bridge/devices", "youll/lamp/availability"])
        await client.close()
        await daemon.stop()
    }

    @Test("get --refresh skips the retained state and returns the one published after /get")
    func refreshedState() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker, devices: #"[{"id":"bf01","friendly_name":"lamp"}]"#)
        try await daemon.publish("youll/lamp", #"{"state":"OFF"}"#, retain: true)
        await daemon.onGet { try await daemon.publish("youll/lamp", #"{"state":"ON"}"#, retain: true) }
        let client = try await connectedClient(broker)
        let fresh = try await client.refreshedState(device: "lamp", timeout: wait)
        #expect(fresh.json == .object(["state": .string("ON")]))
        await client.close()
        await daemon.stop()
    }

    @Test("a broker that refuses connections is named in one line")
    func brokerRefused() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        var configuration = GatewayConfiguration(
            stateDirectory: "/nonexistent", profiles: .init(installed: "/x", user: "/y"))
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: port)
        let client = try BridgeClient(configuration: configuration)
        do {
            try await client.connect(timeout: wait)
            Issue.record("connected to a closed port")
        } catch {
            #expect(
                error.description.hasPrefix("cannot reach the broker at mqtt://127.0.0.1:\(port): connection refused"))
        }
        await client.close()
    }

    // MARK: - Support

    func configuration(_ broker: LocalBroker) -> GatewayConfiguration {
        var configuration = GatewayConfiguration(
            stateDirectory: "/nonexistent", profiles: .init(installed: "/x", user: "/y"))
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: broker.port)
        return configuration
    }

    func connectedClient(_ broker: LocalBroker) async throws -> BridgeClient {
        let client = try BridgeClient(configuration: configuration(broker))
        try await client.connect(timeout: wait)
        return client
    }
}

/// The daemon's side of the bridge API, played by the test: retained state and device list,
/// and an answer function for requests (`bridge/request/<verb>`) and `/set` commands.
actor FakeDaemon {
    typealias Answer = @Sendable (_ verbOrTopic: String, _ request: JSONValue) -> [JSONValue]
    typealias RawAnswer = @Sendable (_ verbOrTopic: String, _ request: JSONValue) -> [[UInt8]]

    private let client: MQTTClient
    private let raw: RawAnswer
    /// The key the fake publishes in `bridge/info`, which clients seal local keys to.
    let privateKey = Curve25519.KeyAgreement.PrivateKey()
    private var consumer: Task<Void, Never>?
    private var getHandler: (@Sendable () async throws -> Void)?
    private(set) var requests: [(String, JSONValue)] = []
    private var requestWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

    private init(client: MQTTClient, raw: @escaping RawAnswer) {
        self.client = client
        self.raw = raw
    }

    static func start(
        _ broker: LocalBroker, state: String = #"{"state":"online"}"#, devices: String? = nil,
        answer: @escaping Answer = { _, _ in [] }
    ) async throws -> FakeDaemon {
        try await startRaw(broker, state: state, devices: devices) { answer($0, $1).map(CompactJSON.encode) }
    }

    /// Answers with raw payloads, which need not be JSON.
    static func startRaw(
        _ broker: LocalBroker, state: String = #"{"state":"online"}"#, devices: String? = nil, raw: @escaping RawAnswer
    ) async throws -> FakeDaemon {
        let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
        let daemon = FakeDaemon(client: client, raw: raw)
        try await client.connect()
        await daemon.startConsuming()
        try await client.subscribe("youll/bridge/request/#")
        try await client.subscribe("youll/+/set")
        try await client.subscribe("youll/+/get")
        try await daemon.publish("youll/bridge/state", state, retain: true)
        let publicKey = daemon.privateKey.publicKey.rawRepresentation.base64EncodedString()
        try await daemon.publish("youll/bridge/info", #"{"public_key":"\#(publicKey)"}"#, retain: true)
        if let devices { try await daemon.publish("youll/bridge/devices", devices, retain: true) }
        return daemon
    }

    func publish(_ topic: String, _ text: String, retain: Bool = false) async throws {
        try await client.publish(topic: topic, payload: Array(text.utf8), retain: retain)
    }

    func onGet(_ handler: @escaping @Sendable () async throws -> Void) {
        getHandler = handler
    }

    /// Returns once `count` requests have arrived.
    func waitForRequests(_ count: Int) async throws {
        guard requests.count < count else { return }
        await withCheckedContinuation { requestWaiters.append((count, $0)) }
    }

    func stop() async {
        await client.close()
        await consumer?.value
    }

    private func startConsuming() {
        let events = client.events
        consumer = Task {
            for await event in events {
                guard case .message(let message) = event else { continue }
                await self.handle(message)
            }
        }
    }

    private func handle(_ message: MQTTMessage) async {
        let request = (try? CompactJSON.decode(message.payload)) ?? .null
        if message.topic.hasSuffix("/get") {
            try? await getHandler?()
            return
        }
        let prefix = "youll/bridge/request/"
        let isRequest = message.topic.hasPrefix(prefix)
        let key = isRequest ? String(message.topic.dropFirst(prefix.count)) : message.topic
        requests.append((key, request))
        let ready = requestWaiters.filter { $0.0 <= requests.count }
        requestWaiters.removeAll { $0.0 <= requests.count }
        for (_, waiter) in ready { waiter.resume() }
        let responseTopic = "youll/bridge/response/" + (isRequest ? key : "device/set")
        for payload in raw(key, request) {
            try? await client.publish(topic: responseTopic, payload: payload)
        }
    }
}
