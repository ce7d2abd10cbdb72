import Foundation
import Logging
import MQTTLink
import Storage
import Timing
import TuyaController
import TuyaCore
import TuyaWire
import SessionEngine

/// The daemon's MQTT bridge API (README "The MQTT bridge API"): answers requests, turns
/// `/set` and `/get` into controller calls, and publishes the bridge's and every device's
/// state, retained, in a fixed order after every connection (`RetainedPublishState`).
///
/// Everything it publishes goes through the shared `BridgePublisher`, so messages leave in
/// the order they were decided: after a reconnect the bridge state, info, devices,
/// availability and then values, never interleaved with a state change that happened
/// meanwhile. Which requests it takes on is `RequestAdmission`'s call; the pairing window
/// is a `PermitJoinWindow`.
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
        public var info: BridgeInfo
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
        /// Timer presets a `youll://timer?preset=` link may name (`timer.presetNames`).
        public var presets: Set<String> = GatewayConfiguration.Timer().presetNames
        /// Hosts of universal links (`deep_links.universal_link_hosts`).
        public var universalLinkHosts: Set<String> = []
        /// How often `backup` may write a copy, how many are kept, how much room it leaves.
        var backups = BackupRotation()
        /// Pairings and removals within this long share one `bridge/devices` publish.
        public var devicesCoalescing: Duration = .milliseconds(100)
        /// Signed requests and sealed keys (BridgeServer+Security.swift).
        public var security = BridgeSecurity()

        public init(
            topics: BridgeTopics, permitJoinDefault: Duration, backupDirectory: URL, info: BridgeInfo,
            ble: BLESupport = .unavailable(reason: "BLE is not set up")
        ) {
            self.ble = ble
            self.topics = topics
            self.permitJoinDefault = permitJoinDefault
            self.backupDirectory = backupDirectory
            self.info = info
        }
    }

    /// What the bridge counts for `health_check` and `bridge/health`, and what it logged: the
    /// messages dropped unread as last logged (`publishHealth`), the refusals (`logRefusal`).
    struct Counters: Sendable {
        var requestsAnswered = 0, commandsFailed = 0, messagesIn = 0, connections = 0
        var droppedLogged = 0, logBudget = LogBudget()
    }

    let settings: Settings
    let client: MQTTClient
    let publisher: BridgePublisher
    let controller: TuyaController
    let database: GatewayDatabase
    let library: ProfileLibrary
    /// The maintenance service behind `maintenance/…` and `deeplink/resolve`; nil when disabled.
    let maintenance: MaintenanceService?
    /// The timer behind the `session/*` verbs; nil when the gateway runs none.
    let sessions: SessionService?
    let logger: Logger
    let clock: any Clock<Duration>
    /// The bridge's clock as offsets from its start: the pairing window's end.
    let time: OffsetClock
    private let startedAt = ContinuousClock.now

    private var tasks: [Task<Void, Never>] = []
    private var controllerEvents: Task<Void, Never>?
    /// Reported states waiting for their commit, to be published after it in this order.
    let savedStates = Mailbox.make(of: SavedState.self)
    private var savedStatesTask: Task<Void, Never>?
    private var requests: [Int: Task<Void, Never>] = [:]
    private var admission: RequestAdmission
    var setLookups = TurnLane()
    var setLanes = SetLanes<DeviceID>()
    /// Checks signed requests; nil when `bridge.auth` is off.
    var authenticator: RequestAuthenticator?
    /// The broker closed the connection and no reconnect has failed since: a takeover if it
    /// takes the bridge back at once.
    var closedByBroker = false
    var retained = RetainedPublishState()
    var counters = Counters()
    /// Why the last write the bridge depends on failed; nil once one succeeds again.
    var databaseProblem: String?
    /// When `backup` last wrote a copy.
    var lastBackupAt: ContinuousClock.Instant?
    /// The `bridge/devices` publish that pairings and removals are waiting to share.
    var pendingDevicesPublish: Task<Void, Never>?
    var pairingWindow = PermitJoinWindow()
    var permitJoinTimer: Task<Void, Never>?
    var births = BirthRepublishes()
    var republishes = TurnLane()
    /// The BLE scan of the current pairing window, when it includes BLE.
    var bleScan: BLEPairingScan?
    /// Home Assistant discovery, when enabled.
    var discoveryPublisher: HADiscoveryPublisher?

    public init(
        settings: Settings, client: MQTTClient, publisher: BridgePublisher, controller: TuyaController,
        database: GatewayDatabase, library: ProfileLibrary, maintenance: MaintenanceService? = nil,
        sessions: SessionService? = nil, logger: Logger, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.settings = settings
        self.client = client
        self.publisher = publisher
        self.controller = controller
        self.database = database
        self.library = library
        self.maintenance = maintenance
        self.sessions = sessions
        self.logger = logger
        self.clock = clock
        time = OffsetClock(clock)
        admission = RequestAdmission(limit: settings.maximumConcurrentRequests)
        authenticator = settings.security.token.map {
            RequestAuthenticator(
                token: $0, tokenFile: settings.security.tokenFile, startedAt: settings.security.now())
        }
        discoveryPublisher = settings.homeAssistant.map {
            HADiscoveryPublisher(configuration: $0, topics: settings.topics, logger: logger)
        }
    }

    var topics: BridgeTopics { settings.topics }
    var metrics: GatewayMetrics { publisher.metrics }

    /// The last will the bridge's client must be created with: `{"state":"offline"}`, retained.
    public static func lastWill(topics: BridgeTopics) -> MQTTConfiguration.LastWill {
        MQTTConfiguration.LastWill(
            topic: topics.state, payload: Array(BridgeJSON.text(BridgeJSON.value(AvailabilityPayload.offline)).utf8))
    }

    // MARK: - Lifecycle

    /// Subscribes to requests, `/set` and `/get`, connects, and starts consuming the
    /// controller's events. Throws the client's error when the first connection fails.
    public func start() async throws {
        publisher.outbox.start()
        let events = client.events
        // Each consumer hops onto the server once for a run of events, not once per event.
        tasks.append(
            Task { [weak self] in
                for await event in events { await self?.handle(event, thenBufferedFrom: events) }
            })
        let controllerStream = controller.events()
        controllerEvents = Task { [weak self] in
            for await event in controllerStream { await self?.handle(event, thenBufferedFrom: controllerStream) }
        }
        savedStatesTask = publishSavedStates()
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
        admission.refuseNew()
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
        await controllerEvents?.value
        savedStates.continuation.finish()
        await savedStatesTask?.value
        await database.flushQueuedStates()
        await close()
    }

    /// Call when `start` failed (the controller may still run): drops the controller's
    /// events instead of waiting for their end, publishes nothing more, and disconnects.
    public func abandon() async {
        controllerEvents?.cancel()
        savedStates.continuation.finish()
        await close()
    }

    private func close() async {
        admission.refuseNew()
        permitJoinTimer?.cancel()
        births.trailing?.cancel()
        publisher.publish(topics.state, BridgeJSON.value(AvailabilityPayload.offline), retain: true)
        await publisher.outbox.flush(timeout: .seconds(3))
        discoveryPublisher?.commitLedger()
        await publisher.outbox.finish()
        for task in tasks { task.cancel() }
        for task in requests.values { task.cancel() }
        await client.close()
    }

    /// A device's state or availability changed: whether it may be published now (else the
    /// republish under way carries it, and it is sent again right after).
    func deviceChanged(_ id: DeviceID) -> Bool {
        retained.deviceChanged(id)
    }

    // MARK: - Publishing

    func enqueue(_ topic: String, _ value: JSONValue, retain: Bool = false) {
        publisher.publish(topic, value, retain: retain)
    }

    /// Publishes on `bridge/event` and appends the event to the database's log.
    func emit(_ type: String, device: DeviceID? = nil, _ data: [String: JSONValue]) async {
        await publisher.emit(type, device: device, data)
    }

    /// The device's confirmed state, once it has reported anything.
    func reportedState(of id: DeviceID) async -> DeviceState? {
        guard let reported = await controller.reportedDataPoints(of: id), !reported.isEmpty else { return nil }
        return await controller.confirmedState(of: id)
    }

    func enqueueState(_ state: DeviceState, of device: TuyaDevice) {
        enqueue(topics.device(device.name), DeviceStatePayload.json(state), retain: true)
    }

    func publishDevices() async {
        let devices = await controller.devices()
        let inactive = await controller.inactiveDevices
        enqueueDevices(devices, inactive: inactive)
        enqueueDiscovery(devices, keeping: inactive.map(\.device), republish: false)
    }

    /// `bridge/devices`: the driven devices, then those that cannot be driven, each with its
    /// `problem`.
    func enqueueDevices(_ devices: [TuyaDevice], inactive: [InactiveDevice]) {
        let list =
            devices.map { BridgeDevicePayload.json($0, profile: library.profile(id: $0.profileID)) }
            + inactive.map {
                BridgeJSON.value(BridgeDevicePayload($0, profile: library.profile(id: $0.device.profileID)))
            }
        enqueue(topics.devices, .array(list), retain: true)
    }

    /// Publishes the device's availability, retained, once the gateway knows it. Until the
    /// device is heard from after a start, whatever was retained before stays: announcing
    /// "offline" for a device that answers a moment later would flap every entity at every
    /// restart (a gateway that is down is said by `bridge/state`, which every entity follows).
    func enqueueAvailability(_ device: TuyaDevice, _ status: ConnectionStatus?, force: Bool = false) {
        guard let status, status.availability != .unknown,
            retained.announce(status.availability, of: device.id, force: force)
        else { return }
        enqueue(
            topics.availability(device.name), BridgeJSON.value(AvailabilityPayload(status.availability)), retain: true)
    }

    func publishInfo() {
        var info = settings.info
        let left = pairingWindow.secondsLeft(now: time.now())
        info.permitJoin = left != nil
        info.permitJoinTimeout = left
        enqueue(topics.info, BridgeJSON.value(info), retain: true)
    }

    // MARK: - Broker events

    private func handle(_ event: MQTTEvent, thenBufferedFrom events: Mailbox<MQTTEvent>) async {
        await handle(event)
        while let next = events.nextIfBuffered() { await handle(next) }
    }

    private func handle(_ event: MQTTEvent) async {
        switch event {
        case .connected:
            noteTakeover(after: .connected)
            retained.connected()
            counters.connections += 1
            if counters.connections > 1 { metrics.brokerReconnects.increment() }
            logger.info("bridge connected to the broker; publishing state, devices, availability and values")
            await republishAll()
            await publishHealth()
            releaseRepublishPeak()
        case .disconnected(let reason):
            retained.disconnected()
            logger.warning("bridge lost the broker: \(reason)")
            noteTakeover(after: event)
        case .reconnectFailed(let error, let delay):
            noteTakeover(after: event)
            logger.warning("broker unreachable (\(error)); retrying in \(delay.roundedText)")
        case .message(let message):
            await received(message)
        }
    }

    private func received(_ message: MQTTMessage) async {
        counters.messagesIn += 1
        metrics.messagesIn.increment()
        if let birth = isHomeAssistantBirth(topic: message.topic, payload: message.payload) {
            // A retained `online` is old news: every connection republishes anyway.
            if birth, !message.retain { await homeAssistantCameOnline() }
            return
        }
        // A retained command would be replayed at every start: only live messages count.
        guard !message.retain, let incoming = topics.classify(message.topic) else { return }
        let kind: RequestAdmission.Kind =
            if case .request(let verb) = incoming, RequestAdmission.slowVerbs.contains(verb) { .slow } else { .quick }
        switch admission.admit(kind) {
        case .refused(let reason):
            refuse(incoming, payload: message.payload, reason: reason)
        case .admitted(let id):
            let payload = message.payload
            // Taken here, in the order the messages arrived, not in the task.
            let place = if case .set = incoming { setLookups.take() } else { 0 }
            requests[id] = Task { [weak self] in
                await self?.serve(incoming, payload: payload, place: place, admitted: id)
            }
        }
    }

    /// Serves the request and counts it finished in the same turn on the server as its
    /// answer was queued: a client that sends its next request on the answer never finds
    /// the previous one still counted (it would be refused as one too many).
    private func serve(_ incoming: BridgeTopics.Incoming, payload: [UInt8], place: Int, admitted id: Int) async {
        switch incoming {
        case .request(let verb): await answer(verb: verb, payload: payload)
        case .set(let name): await handleSet(name: name, payload: payload, place: place)
        case .get(let name): await handleGet(name: name)
        }
        admission.finished(id)
        requests[id] = nil
    }

    private func refuse(_ incoming: BridgeTopics.Incoming, payload: [UInt8], reason: String) {
        switch incoming {
        case .request(let verb):
            guard BridgeRequest.isAnswerable(verb: verb) else {
                return refuseUnanswerable(verb: verb, payload: payload)
            }
            respond(verb, .failure(verb: verb, message: reason), transaction: BridgeRequest.transaction(in: payload))
        case .set:
            if let transaction = BridgeRequest.transaction(in: payload) {
                respond("device/set", .failure(verb: "device/set", message: reason), transaction: transaction)
            }
        case .get: break
        }
    }

    /// For `health_check`.
    var uptime: Duration { ContinuousClock.now - startedAt }
    var isConnected: Bool { retained.isConnected }
}
