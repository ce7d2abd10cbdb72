import Foundation
import Logging
import MQTTLink
import Storage
import TuyaController
import TuyaCore
import TuyaWire

/// The daemon's MQTT bridge API (README "The MQTT bridge API"): answers requests, turns
/// `/set` and `/get` into controller calls, and publishes the bridge's and every device's
/// state, retained, in a fixed order after every connection.
///
/// Everything it publishes goes through one serial outbox, so messages leave in the order
/// they were decided: after a reconnect the bridge state, info, devices, availability and
/// then values, never interleaved with a state change that happened meanwhile.
///
/// It has its own broker connection (with the `offline` last will), separate from the
/// controller's device bus, so a flood of device frames never delays an API answer.
public actor BridgeServer {
    public struct Settings: Sendable {
        public var topics: BridgeTopics
        /// How long `permit_join` keeps the window open when the request names no time.
        public var permitJoinDefault: Duration
        /// Where `backup` writes its copies (`<state>/backups`).
        public var backupDirectory: URL
        /// Published in `bridge/info`; must hold nothing secret.
        public var info: [String: JSONValue]
        /// Requests handled at once; more are refused as busy, so a flood cannot exhaust memory.
        public var maximumConcurrentRequests = 64
        /// Whether BLE can be used, and why not.
        public var ble: BLESupport = .unavailable(reason: "BLE is not set up")
        /// The scan a pairing window listens with (the radio's); nil: BlueZ on the adapter.
        var bleScanner: BLEScannerFactory?
        /// Home Assistant discovery; nil when `home_assistant.enabled` is off.
        public var homeAssistant: HADiscoveryConfiguration?
        /// How often `bridge/health` is published (also after every connection).
        public var healthInterval: Duration = .seconds(60)
        /// The Prometheus metrics this bridge records into.
        public var metrics = GatewayMetrics()

        public init(
            topics: BridgeTopics, permitJoinDefault: Duration, backupDirectory: URL, info: [String: JSONValue],
            ble: BLESupport = .unavailable(reason: "BLE is not set up")
        ) {
            self.ble = ble
            self.topics = topics
            self.permitJoinDefault = permitJoinDefault
            self.backupDirectory = backupDirectory
            self.info = info
        }
    }

    let settings: Settings
    let client: MQTTClient
    let controller: TuyaController
    let database: GatewayDatabase
    let library: ProfileLibrary
    let logger: Logger
    let clock: any Clock<Duration>
    let outbox: BridgeOutbox
    private let startedAt = ContinuousClock.now

    private var tasks: [Task<Void, Never>] = []
    private var controllerEvents: Task<Void, Never>?
    private var requests: [Int: Task<Void, Never>] = [:]
    private var nextRequestID = 0
    private var refusing = false
    private var connected = false
    /// Whether the retained topics were republished since this connection came up; until
    /// then a device's state or availability change waits for that full republish (which
    /// carries it), so the documented order holds after every connection.
    private var announced = false
    /// Devices that changed while the republish was being gathered; sent again after it.
    private var changedDuringRepublish: Set<DeviceID> = []
    var permitJoinEnd: ContinuousClock.Instant?
    var permitJoinTask: Task<Void, Never>?
    /// The BLE scan of the current pairing window, when it includes BLE.
    var bleScan: BLEPairingScan?
    /// The maintenance service behind `maintenance/…` and `deeplink/resolve`; nil when disabled.
    var maintenance: MaintenanceService?

    /// Home Assistant discovery, when enabled.
    var discoveryPublisher: HADiscoveryPublisher?

    /// The timer behind the `session/*` verbs (BridgeServer+Sessions.swift); nil until attached.
    var sessions: SessionService?
    /// The last `bridge/session` published, sent again with the other retained topics after a reconnect.
    var lastSessionStatus: JSONValue?
    /// Counters for `health_check`.
    var requestsAnswered = 0
    var commandsFailed = 0
    /// Counters for `bridge/health`: messages received from and published to the broker.
    var messagesIn = 0
    var messagesOut = 0
    private var connections = 0

    public init(
        settings: Settings, client: MQTTClient, controller: TuyaController, database: GatewayDatabase,
        library: ProfileLibrary, logger: Logger, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.settings = settings
        self.client = client
        self.controller = controller
        self.database = database
        self.library = library
        self.logger = logger
        self.clock = clock
        outbox = BridgeOutbox(client: client, logger: logger)
        discoveryPublisher = settings.homeAssistant.map {
            HADiscoveryPublisher(configuration: $0, topics: settings.topics, logger: logger)
        }
    }

    var topics: BridgeTopics { settings.topics }

    /// The last will the bridge's client must be created with: `{"state":"offline"}`, retained.
    public static func lastWill(topics: BridgeTopics) -> MQTTConfiguration.LastWill {
        MQTTConfiguration.LastWill(topic: topics.state, payload: Array(#"{"state":"offline"}"#.utf8))
    }

    // MARK: - Lifecycle

    /// Subscribes to requests, `/set` and `/get`, connects, and starts consuming the
    /// controller's events. Throws the client's error when the first connection fails.
    public func start() async throws {
        outbox.start()
        let events = client.events
        tasks.append(
            Task { [weak self] in
                for await event in events { await self?.handle(event) }
            })
        let controllerStream = controller.events()
        controllerEvents = Task { [weak self] in
            for await event in controllerStream { await self?.handle(event) }
        }
        tasks.append(healthLoop())
        let client = client
        var filters = [topics.requestFilter, topics.setFilter, topics.getFilter]
        if let publisher = discoveryPublisher { filters.append(publisher.discovery.statusTopic) }
        // Subscribed before connecting: the client restores them on every connection and
        // reports `.connected` once they are granted, so no request goes unheard.
        for filter in filters {
            tasks.append(Task { try? await client.subscribe(filter, qos: .atLeastOnce) })
        }
        try await client.connect()
    }

    /// Stops taking requests and waits (up to `grace`) for those under way to answer.
    public func refuseNewRequests(grace: Duration = .seconds(5)) async {
        refusing = true
        let pending = Array(requests.values)
        guard !pending.isEmpty else { return }
        let answered = await finishes(within: grace) {
            for task in pending { await task.value }
        }
        if !answered { logger.warning("\(pending.count) requests still under way at shutdown; they will fail") }
    }

    /// Call after the controller has stopped: records the last state changes it reported,
    /// publishes the bridge's `offline` state, waits for every publish and disconnects.
    public func finish() async {
        refusing = true
        permitJoinTask?.cancel()
        await controllerEvents?.value
        enqueue(topics.state, .object(["state": .string("offline")]), retain: true)
        await outbox.flush(timeout: .seconds(3))
        discoveryPublisher?.commitLedger()
        await outbox.finish()
        for task in tasks { task.cancel() }
        for task in requests.values { task.cancel() }
        await client.close()
    }

    // MARK: - Publishing

    func enqueue(_ topic: String, _ value: JSONValue, retain: Bool = false) {
        countMessageOut()
        outbox.send(topic: topic, payload: CompactJSON.encode(value), retain: retain)
    }

    /// Clears a retained topic (an empty retained payload), e.g. after a rename or removal.
    func clearRetained(_ topic: String) {
        countMessageOut()
        outbox.send(topic: topic, payload: [], retain: true)
    }

    /// Publishes on `bridge/event` and appends the event to the database's log.
    func emit(_ type: String, device: DeviceID? = nil, _ data: [String: JSONValue]) async {
        enqueue(topics.event, .object(["type": .string(type), "data": .object(data)]))
        do {
            _ = try await database.appendEvent(type, device: device, detail: .object(data))
        } catch {
            logger.warning("could not record the \(type) event: \(error)")
        }
    }

    /// Everything retained, in the documented order: state, info, devices, Home Assistant
    /// discovery (when enabled), each device's availability, then each device's values.
    func republishAll() async {
        enqueue(topics.state, .object(["state": .string("online")]), retain: true)
        await publishInfo()
        let devices = await controller.devices()
        var statuses: [DeviceID: ConnectionStatus] = [:]
        var states: [DeviceID: DeviceState] = [:]
        for device in devices {
            statuses[device.id] = await controller.status(of: device.id)
            if let reported = await controller.reportedDataPoints(of: device.id), !reported.isEmpty {
                states[device.id] = await controller.confirmedState(of: device.id)
            }
        }
        // Enqueued without a suspension in between, so nothing can slip into the sequence.
        enqueueDevices(devices)
        enqueueDiscovery(devices, republish: true)
        for device in devices { enqueueAvailability(device, statuses[device.id]) }
        for device in devices {
            if let state = states[device.id] {
                enqueue(topics.device(device.name), DeviceStatePayload.json(state), retain: true)
            }
        }
        if let lastSessionStatus { enqueue(topics.session, lastSessionStatus, retain: true) }
        announced = connected
        guard announced else { return }
        let changed = changedDuringRepublish
        changedDuringRepublish = []
        for id in changed.sorted() {
            guard let device = await controller.device(id) else { continue }
            enqueueAvailability(device, await controller.status(of: id))
            let reported = await controller.reportedDataPoints(of: id) ?? [:]
            if !reported.isEmpty, let state = await controller.confirmedState(of: id) {
                enqueue(topics.device(device.name), DeviceStatePayload.json(state), retain: true)
            }
        }
    }

    private func countMessageOut() {
        messagesOut += 1
        settings.metrics.messagesOut.increment()
    }

    func publishDevices() async {
        let devices = await controller.devices()
        enqueueDevices(devices)
        enqueueDiscovery(devices, republish: false)
    }

    private func enqueueDevices(_ devices: [TuyaDevice]) {
        let list = devices.map { BridgeDevicePayload.json($0, profile: library.profile(id: $0.profileID)) }
        enqueue(topics.devices, .array(list), retain: true)
    }

    func enqueueAvailability(_ device: TuyaDevice, _ status: ConnectionStatus?) {
        var fields: [String: JSONValue] = ["state": .string(status?.availability == .online ? "online" : "offline")]
        if let status, status.availability != .online, status.availability != .offline {
            fields["reason"] = .string(status.availability.rawValue)
        }
        enqueue(topics.availability(device.name), .object(fields), retain: true)
    }

    func publishInfo() async {
        var info = settings.info
        if let end = permitJoinEnd {
            let left = max(0, (end - ContinuousClock.now).components.seconds)
            info["permit_join"] = .bool(true)
            info["permit_join_timeout"] = .integer(left)
        } else {
            info["permit_join"] = .bool(false)
        }
        enqueue(topics.info, .object(info), retain: true)
    }

    // MARK: - Broker events

    private func handle(_ event: MQTTEvent) async {
        switch event {
        case .connected:
            connected = true
            connections += 1
            if connections > 1 { settings.metrics.brokerReconnects.increment() }
            logger.info("bridge connected to the broker; publishing state, devices, availability and values")
            await republishAll()
            await publishHealth()
        case .disconnected(let reason):
            connected = false
            announced = false
            logger.warning("bridge lost the broker: \(reason)")
        case .reconnectFailed(let error, let delay):
            logger.warning("broker unreachable (\(error)); retrying in \(delay)")
        case .message(let message):
            messagesIn += 1
            settings.metrics.messagesIn.increment()
            if let birth = isHomeAssistantBirth(topic: message.topic, payload: message.payload) {
                // A retained `online` is old news: every connection republishes anyway.
                if birth, !message.retain {
                    logger.info("Home Assistant is online; republishing discovery and state")
                    await republishAll()
                }
                return
            }
            // A retained command would be replayed at every start: only live messages count.
            guard !message.retain, let incoming = topics.classify(message.topic) else { return }
            admit(incoming, payload: message.payload)
        }
    }

    private func admit(_ incoming: BridgeTopics.Incoming, payload: [UInt8]) {
        if refusing || requests.count >= settings.maximumConcurrentRequests {
            let reason = refusing ? "the gateway is shutting down" : "too many requests at once; try again"
            refuse(incoming, payload: payload, reason: reason)
            return
        }
        nextRequestID += 1
        let id = nextRequestID
        requests[id] = Task { [weak self] in
            await self?.serve(incoming, payload: payload)
            await self?.requestFinished(id)
        }
    }

    private func requestFinished(_ id: Int) {
        requests[id] = nil
    }

    private func serve(_ incoming: BridgeTopics.Incoming, payload: [UInt8]) async {
        switch incoming {
        case .request(let verb): await answer(verb: verb, payload: payload)
        case .set(let name): await handleSet(name: name, payload: payload)
        case .get(let name): await handleGet(name: name)
        }
    }

    private func refuse(_ incoming: BridgeTopics.Incoming, payload: [UInt8], reason: String) {
        switch incoming {
        case .request(let verb):
            guard BridgeRequest.isAnswerable(verb: verb) else { return }
            respond(verb, .failure(verb: verb, message: reason), transaction: BridgeRequest.transaction(in: payload))
        case .set:
            if let transaction = BridgeRequest.transaction(in: payload) {
                respond("device/set", .failure(verb: "device/set", message: reason), transaction: transaction)
            }
        case .get: break
        }
    }

    /// Publishes `{status, data, error, transaction}` on `bridge/response/<verb>`.
    func respond(_ verb: String, _ result: BridgeResult, transaction: JSONValue?) {
        requestsAnswered += 1
        var fields: [String: JSONValue] = ["data": .object(result.data)]
        switch result.outcome {
        case .ok: fields["status"] = .string("ok")
        case .error(let message):
            fields["status"] = .string("error")
            fields["error"] = .string(message)
        }
        if let transaction { fields["transaction"] = transaction }
        enqueue(topics.response(verb), .object(fields))
    }

    // MARK: - Controller events

    private func handle(_ event: ControllerEvent) async {
        switch event {
        case .stateChanged(let id, let state):
            guard let device = await controller.device(id) else { return }
            // Saved before it is published: what anyone saw confirmed survives a crash.
            await persistConfirmed(id)
            if announced {
                enqueue(topics.device(device.name), DeviceStatePayload.json(state), retain: true)
            } else {
                changedDuringRepublish.insert(id)
            }
        case .availabilityChanged(let id, let status):
            guard let device = await controller.device(id) else { return }
            if announced { enqueueAvailability(device, status) } else { changedDuringRepublish.insert(id) }
            // Coming online is routine (1,000 devices at every start); anything else is news.
            let line: Logger.Message =
                "\(device.name) (\(id)) is \(status.availability.rawValue)\(status.hint.map { ": \($0)" } ?? "")"
            if status.availability == .online { logger.debug(line) } else { logger.notice(line) }
            if status.availability == .authFailed {
                await emit(
                    "auth_failed", device: id,
                    [
                        "id": .string(id.rawValue), "friendly_name": .string(device.name),
                        "message": .string(
                            "frames from \(device.name) do not decrypt with its local key; "
                                + "rekey it with `youll-devices rekey \(device.name)`"),
                    ])
            }
        case .faultRaised(let id, let faults), .faultCleared(let id, let faults):
            let raised = if case .faultRaised = event { true } else { false }
            let name = await controller.device(id)?.name ?? id.rawValue
            await emit(
                raised ? "fault_raised" : "fault_cleared", device: id,
                [
                    "id": .string(id.rawValue), "friendly_name": .string(name),
                    "faults": .array(faults.map(JSONValue.string)),
                ])
        case .devicePaired:
            await publishDevices()
        case .deviceRemoved:
            await publishDevices()
        case .candidateFound(let candidate):
            await emit("device_found", device: candidate.id, ["id": .string(candidate.id.rawValue)])
        }
    }

    /// Records the device's reported values as its confirmed state.
    func persistConfirmed(_ id: DeviceID) async {
        guard let reported = await controller.reportedDataPoints(of: id), !reported.isEmpty else { return }
        do {
            try await database.saveConfirmed(reported, for: id)
        } catch {
            logger.error("could not save the confirmed state of \(id): \(error)")
        }
    }

    /// For `health_check`.
    var uptime: Duration { ContinuousClock.now - startedAt }
    var isConnected: Bool { connected }
}

/// The answer to one request: `data`, and `ok` or an error message.
struct BridgeResult: Sendable {
    enum Outcome: Sendable {
        case ok
        case error(String)
    }

    var outcome: Outcome
    var data: [String: JSONValue]

    static func ok(_ data: [String: JSONValue]) -> BridgeResult { BridgeResult(outcome: .ok, data: data) }

    static func failure(verb: String, message: String, data: [String: JSONValue] = [:]) -> BridgeResult {
        BridgeResult(outcome: .error("\(verb): \(message)"), data: data)
    }
}
