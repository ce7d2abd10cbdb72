import MQTTLink
import TuyaCore
import TuyaWire

/// The CLI's side of the MQTT bridge API (README "The MQTT bridge API"): one short-lived
/// broker connection that reads retained topics, sends requests and waits for their
/// responses, and follows live topics.
///
/// - The connection has no last will and a clean session (the client id is left to
///   libmosquitto, which then asks for a clean session: MQTTLink ties a chosen id to a
///   persistent one, and every CLI run would leave a session behind on the broker).
/// - One task consumes `MQTTClient.events` and routes each message to the waits whose
///   topic filters match it, in the order the broker delivered them.
/// - "Nothing retained" is known without waiting for a timeout: after subscribing, the
///   client publishes a marker on its own sync topic; the broker queues the retained
///   messages of a new subscription before any later publish, so the marker arriving
///   first means there was nothing retained.
public actor BridgeClient {
    /// First level of the bridge's topics (`youll`).
    public nonisolated let baseTopic: String
    /// `mqtt://host:port`, for messages.
    public nonisolated let broker: String
    private nonisolated let mqtt: MQTTClient
    private nonisolated let clock: any Clock<Duration>
    /// Random per client: the transactions and the sync topic of two CLIs never collide.
    private nonisolated let token: String
    private var listeners: [Int: Listener] = [:]
    /// How many messages one slow reader may have waiting (`listenerBuffer`).
    private nonisolated let listenerLimit: Int
    /// Messages a slow reader lost: its oldest, once `listenerBuffer` were waiting for it.
    public private(set) var droppedMessages = 0
    private var nextListener = 0
    private var nextSequence = 0
    /// Why the connection ended, once it has.
    private var lostReason: String?
    /// `bridge.token_file`: where the token that signs requests is read (when first needed).
    nonisolated let tokenFile: String
    /// The token, or why it cannot be read; nil until a request needs it.
    var signingToken: Result<BridgeToken, BridgeTokenError>?
    /// The public key of `bridge/info`, once read.
    var gatewayKey: String?

    private struct Listener {
        var filters: [String]
        var sink: AsyncStream<BridgeMessage>.Continuation
    }

    /// At most this many messages wait for one reader (a `subscribe` stream printed to a slow
    /// terminal while the broker floods it): beyond, its oldest are dropped and counted in
    /// `droppedMessages`, so a CLI never grows without bound.
    public static let listenerBuffer = 4_096

    /// Prepares a connection to the broker of `configuration`; nothing is dialled before `connect`.
    /// - Parameters:
    ///   - connectTimeout: the longest TCP connect + CONNACK may take.
    ///   - clock: measures every timeout; tests may pass their own.
    ///   - listenerBuffer: see `BridgeClient.listenerBuffer`; tests pass a small one.
    public init(
        configuration: GatewayConfiguration, connectTimeout: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock(), listenerBuffer: Int = BridgeClient.listenerBuffer
    ) throws(BridgeClientError) {
        listenerLimit = max(1, listenerBuffer)
        var link = configuration.mqttLinkConfiguration(lastWill: nil)
        link.clientID = nil
        link.connectTimeout = connectTimeout
        // A CLI that loses the broker reports it rather than waiting through backoff.
        baseTopic = configuration.baseTopic
        tokenFile = configuration.effectiveTokenFile
        broker = configuration.mqtt.broker.description
        do {
            mqtt = try MQTTClient(configuration: link)
        } catch {
            throw .brokerUnreachable(broker: configuration.mqtt.broker.description, reason: error.description)
        }
        self.clock = clock
        token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let events = mqtt.events
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.route(event)
            }
            await self?.finishAll(reason: "the client was closed")
        }
    }

    // MARK: - Connection

    /// Connects to the broker, with errors that name it and the likely fix.
    public func connect(timeout: Duration) async throws(BridgeClientError) {
        let broker = broker
        do {
            try await withDeadline(
                timeout, clock: clock,
                onTimeout: .brokerUnreachable(
                    broker: broker, reason: "no answer within \(BridgeClientError.seconds(timeout))")
            ) { [mqtt] in
                try await mqtt.connect()
            }
        } catch let error as BridgeClientError {
            throw error
        } catch let error as MQTTError {
            throw .brokerUnreachable(broker: broker, reason: Self.explain(error))
        } catch {
            throw .brokerUnreachable(broker: broker, reason: "\(error)")
        }
    }

    /// Disconnects cleanly; pending waits end with `connectionLost`.
    public func close() async {
        await mqtt.close()
        finishAll(reason: "the client was closed")
    }

    /// Throws `daemonNotRunning` unless the retained `<base>/bridge/state` says `online`.
    public func requireDaemonOnline(timeout: Duration) async throws(BridgeClientError) {
        let topic = "\(baseTopic)/bridge/state"
        guard let message = try await retained(topic, timeout: timeout) else {
            if let uptime = await brokerUptime(timeout: timeout), uptime < Self.recentBrokerStart {
                throw .daemonNotRepublished(stateTopic: topic, brokerUptime: uptime)
            }
            throw .daemonNotRunning(stateTopic: topic, found: "has never been published")
        }
        switch message.availability {
        case "online"?: return
        case "offline"?: throw .daemonNotRunning(stateTopic: topic, found: "is offline")
        default:
            let text = BridgeText.printable(String(decoding: message.payload.prefix(64), as: UTF8.self))
            throw .daemonNotRunning(stateTopic: topic, found: "is \"\(text)\", not online")
        }
    }

    /// A broker up for less than this many seconds may have just restarted under a running daemon.
    public static let recentBrokerStart = 120

    /// Seconds since the broker started, from mosquitto's retained `$SYS/broker/uptime`
    /// ("42 seconds"); nil when the broker does not publish it or an ACL hides it.
    func brokerUptime(timeout: Duration) async -> Int? {
        let topic = "$SYS/broker/uptime"
        guard let message = try? await retained(topic, timeout: timeout) else { return nil }
        let text = String(decoding: message.payload.prefix(32), as: UTF8.self)
        guard let number = text.split(separator: " ").first, let seconds = Int(number), seconds >= 0 else { return nil }
        return seconds
    }

    // MARK: - Requests

    /// Sends `payload` to `<base>/bridge/request/<verb>` with a fresh `transaction` and
    /// returns the `data` of the matching response. Responses to other transactions are
    /// skipped; `status: error` throws `requestFailed` with the daemon's words; anything
    /// that is not a response throws `malformedResponse`.
    public func request(
        _ verb: String, _ payload: [String: JSONValue] = [:], timeout: Duration
    ) async throws(BridgeClientError) -> JSONValue {
        // The transaction is part of what is signed.
        var body = payload
        body["transaction"] = .string(newTransaction())
        let prepared = try await secured(verb, body, timeout: timeout)
        do {
            return try await exchange(
                verb: verb, publishTopic: "\(baseTopic)/bridge/request/\(verb)", payload: prepared, timeout: timeout)
        } catch {
            throw explainRefusal(error)
        }
    }

    /// Publishes a command on `<base>/<device>/set` with a `transaction` and waits for the
    /// outcome on `<base>/bridge/response/device/set`. `device` is the friendly name.
    public func set(
        device: String, payload: [String: JSONValue], timeout: Duration
    ) async throws(BridgeClientError) -> JSONValue {
        try await exchange(
            verb: "device/set", publishTopic: "\(baseTopic)/\(device)/set", payload: payload, timeout: timeout)
    }

    func exchange(
        verb: String, publishTopic: String, payload: [String: JSONValue], timeout: Duration
    ) async throws(BridgeClientError) -> JSONValue {
        let responseTopic = "\(baseTopic)/bridge/response/\(verb)"
        let transaction = payload["transaction"] ?? JSONValue.string(newTransaction())
        var body = payload
        body["transaction"] = transaction
        let bytes = CompactJSON.encode(.object(body))
        let (id, stream) = listen([responseTopic])
        defer { unlisten(id) }
        let lost = lostError
        return try await deadline(timeout, waitingFor: "a response on \(responseTopic)") { [mqtt] in
            try await mqtt.subscribe(responseTopic)
            try await mqtt.publish(topic: publishTopic, payload: bytes)
            for await message in stream {
                switch BridgeResponse.read(message.payload, transaction: transaction) {
                case .otherTransaction: continue
                case .ok(let data): return data
                case .failed(let reason): throw BridgeClientError.requestFailed(verb: verb, message: reason)
                case .malformed(let reason):
                    throw BridgeClientError.malformedResponse(topic: responseTopic, reason: reason)
                }
            }
            throw await lost()
        }
    }

    // MARK: - Retained and live topics

    /// The message retained on `topic` (a topic, not a filter), or `nil` when none is.
    public func retained(_ topic: String, timeout: Duration) async throws(BridgeClientError) -> BridgeMessage? {
        try await retained(matching: [topic], timeout: timeout).last { $0.topic == topic }
    }

    /// Every message retained on topics matching `filters` (in the broker's order), and
    /// any published on them while this waited.
    public func retained(matching filters: [String], timeout: Duration) async throws(BridgeClientError)
        -> [BridgeMessage]
    {
        let sync = syncTopic
        let marker = Array(newTransaction().utf8)
        let (id, stream) = listen(filters + [sync])
        defer { unlisten(id) }
        let lost = lostError
        return try await deadline(timeout, waitingFor: "the retained messages on \(filters.joined(separator: ", "))") {
            [mqtt] in
            for filter in filters { try await mqtt.subscribe(filter) }
            try await mqtt.subscribe(sync)
            try await mqtt.publish(topic: sync, payload: marker)
            var collected: [BridgeMessage] = []
            for await message in stream {
                if message.topic == sync {
                    if message.payload == marker { return collected }
                    continue
                }
                collected.append(message)
            }
            throw await lost()
        }
    }

    /// The next message published on `topic` (a topic, not a filter), retained or live.
    func nextMessage(on topic: String, timeout: Duration) async throws(BridgeClientError) -> BridgeMessage {
        let (id, stream) = listen([topic])
        defer { unlisten(id) }
        let lost = lostError
        return try await deadline(timeout, waitingFor: "a message on \(topic)") { [mqtt] in
            try await mqtt.subscribe(topic)
            for await message in stream { return message }
            throw await lost()
        }
    }

    /// Asks the device for all its values (`<base>/<device>/get`) and returns the next state
    /// it publishes on `<base>/<device>`, skipping the one already retained.
    public func refreshedState(device: String, timeout: Duration) async throws(BridgeClientError) -> BridgeMessage {
        let stateTopic = "\(baseTopic)/\(device)"
        let getTopic = "\(baseTopic)/\(device)/get"
        let sync = syncTopic
        let marker = Array(newTransaction().utf8)
        let (id, stream) = listen([stateTopic, sync])
        defer { unlisten(id) }
        let lost = lostError
        return try await deadline(timeout, waitingFor: "a new state on \(stateTopic)") { [mqtt] in
            try await mqtt.subscribe(stateTopic)
            try await mqtt.subscribe(sync)
            try await mqtt.publish(topic: sync, payload: marker)
            var synced = false
            for await message in stream {
                if message.topic == sync {
                    guard !synced, message.payload == marker else { continue }
                    synced = true
                    try await mqtt.publish(topic: getTopic, payload: Array("{}".utf8))
                } else if synced {
                    return message
                }
            }
            throw await lost()
        }
    }

    /// Live messages on topics matching `filters`, from the moment the broker granted the
    /// subscriptions (retained ones are marked `retained`). Ends when the connection does.
    public func subscribe(_ filters: [String]) async throws(BridgeClientError) -> AsyncStream<BridgeMessage> {
        let (_, stream) = listen(filters)
        for filter in filters {
            do {
                try await mqtt.subscribe(filter)
            } catch {
                throw .broker("\(error)")
            }
        }
        return stream
    }

    /// The devices in the retained `<base>/bridge/devices`.
    public func devices(timeout: Duration) async throws(BridgeClientError) -> [BridgeDevice] {
        let topic = "\(baseTopic)/bridge/devices"
        guard let message = try await retained(topic, timeout: timeout) else {
            throw .nothingRetained(topic: topic, hint: "the daemon publishes it once it is connected")
        }
        return try BridgeDevice.list(from: message.decoded(), topic: topic)
    }

    // MARK: - Routing

    private var syncTopic: String { "\(baseTopic)/cli/\(token)/sync" }

    private func newTransaction() -> String {
        nextSequence += 1
        return "cli-\(token)-\(nextSequence)"
    }

    private func listen(_ filters: [String]) -> (Int, AsyncStream<BridgeMessage>) {
        let (stream, sink) = AsyncStream.makeStream(
            of: BridgeMessage.self, bufferingPolicy: .bufferingNewest(listenerLimit))
        nextListener += 1
        if lostReason == nil {
            listeners[nextListener] = Listener(filters: filters, sink: sink)
        } else {
            sink.finish()
        }
        return (nextListener, stream)
    }

    private func unlisten(_ id: Int) {
        listeners.removeValue(forKey: id)?.sink.finish()
    }

    private func route(_ event: MQTTEvent) {
        switch event {
        case .message(let message):
            let received = BridgeMessage(topic: message.topic, payload: message.payload, retained: message.retain)
            for listener in listeners.values
            where listener.filters.contains(where: { TopicFilter.matches($0, message.topic) }) {
                if case .dropped = listener.sink.yield(received) { droppedMessages += 1 }
            }
        case .disconnected(let reason):
            finishAll(reason: reason.description)
        case .connected:
            lostReason = nil
        case .reconnectFailed:
            break
        }
    }

    private func finishAll(reason: String) {
        if lostReason == nil { lostReason = reason }
        for listener in listeners.values { listener.sink.finish() }
        listeners = [:]
    }

    /// Builds, when a wait's stream ends, the error saying why.
    private nonisolated var lostError: @Sendable () async -> BridgeClientError {
        { [weak self] in
            guard let self else { return .connectionLost(broker: "the broker", reason: "the client was released") }
            return await .connectionLost(broker: broker, reason: self.lostReason ?? "unknown reason")
        }
    }

    private func deadline<T: Sendable>(
        _ timeout: Duration, waitingFor what: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws(BridgeClientError) -> T {
        do {
            return try await withDeadline(
                timeout, clock: clock, onTimeout: .timedOut(waitingFor: what, after: timeout), operation)
        } catch let error as BridgeClientError {
            throw error
        } catch let error as MQTTError {
            throw .broker(error.description)
        } catch {
            throw .broker("\(error)")
        }
    }

    /// MQTTLink's words, shortened where the broker URL already says where.
    static func explain(_ error: MQTTError) -> String {
        switch error {
        case .connectionRefused:
            "connection refused (is the broker running? set mqtt.url in the configuration or YOULL_MQTT_URL)"
        default:
            error.description
        }
    }
}
