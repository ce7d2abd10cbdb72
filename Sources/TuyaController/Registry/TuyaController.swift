import Timing
import Foundation
import TuyaCore
import TuyaWire

/// The service behind `TuyaControllerProtocol`: the device registry, pairing, and one
/// link per paired device, an `MQTTDeviceLink` for a Wi-Fi device or a `BLEDeviceLink`
/// for a BLE one. Callers never see which: commands, confirmation, availability and
/// events are the same.
///
/// One bus subscription to `smart/device/out/+` receives every device's frames; each is
/// handed to the link for its devId. Frames from unknown devIds are listed as pairing
/// candidates while the pairing window is open and otherwise ignored. The controller
/// consumes the bus's events itself, so give it a bus nobody else reads.
public actor TuyaController: TuyaControllerProtocol {
    public struct Configuration: Hashable, Sendable {
        /// How long `pair` waits for a decryptable report.
        public var pairingTimeout: Duration = .seconds(15)
        /// How long `send` waits for the device to confirm.
        public var confirmationTimeout: Duration = .seconds(5)
        public var queryInterval: Duration = .seconds(30)
        public var maxUnansweredQueries = 3
        /// No traffic for this long means offline; nil: `queryInterval * (maxUnansweredQueries + 1)`.
        public var silenceTimeout: Duration?
        /// How long `pairBLE` waits for the device to connect, pair and answer its first
        /// query. Longer than the session's 60 s response timeout, so a device that stays
        /// silent (a wrong key) is reported as such rather than as a timeout.
        public var blePairingTimeout: Duration = .seconds(75)
        /// How long `send` waits for a BLE device (which may need to connect and pair first).
        public var bleConfirmationTimeout: Duration = .seconds(15)

        public init() {}
    }

    static let outTopicPrefix = "smart/device/out/"

    private let bus: any DeviceBus
    private let radio: BLERadio
    private let library: ProfileLibrary
    private let store: any DeviceStore
    private let configuration: Configuration
    private let linkClock: OffsetClock
    private let unixTime: @Sendable () -> Int64
    private let hub = EventHub()
    private let persistence: AsyncStream<(DeviceID, DataPoints)>.Continuation
    private let persistenceStream: AsyncStream<(DeviceID, DataPoints)>
    private let factory: LinkFactory
    private let mqttPairer: MQTTPairer

    private var links: [DeviceID: any DeviceLinkDriver] = [:]
    private var registry: [DeviceID: TuyaDevice] = [:]
    /// Devices being paired or rekeyed now, whatever their transport: their frames go to
    /// the pairing, and a second pairing of the same id is refused.
    private var pairing: Set<DeviceID> = []
    private var window = PairingWindow()
    private var busConnected = false
    private var running = false
    private var tasks: [Task<Void, Never>] = []

    /// - Parameters:
    ///   - radio: how BLE devices are reached; without an adapter, `.unavailable(reason:)`.
    ///   - clock: drives confirmation deadlines, frame gaps, queries and pairing timeouts.
    ///   - unixTime: the `t` field of outgoing frames and `lastSeen`.
    ///   - sequenceSeed: the first sequence number of each link (masked to 0xffff).
    public init(
        bus: any DeviceBus, library: ProfileLibrary, store: any DeviceStore = InMemoryDeviceStore(),
        radio: BLERadio = .unavailable(reason: "BLE is not set up"),
        configuration: Configuration = Configuration(), clock: any Clock<Duration> = ContinuousClock(),
        unixTime: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        sequenceSeed: @escaping @Sendable () -> UInt32 = { UInt32.random(in: 0...0xffff) }
    ) {
        self.bus = bus
        self.radio = radio
        self.library = library
        self.store = store
        self.configuration = configuration
        let linkClock = OffsetClock(clock)
        self.linkClock = linkClock
        self.unixTime = unixTime
        (persistenceStream, persistence) = AsyncStream.makeStream(of: (DeviceID, DataPoints).self)
        factory = LinkFactory(
            bus: bus, radio: radio, configuration: configuration, clock: linkClock, unixTime: unixTime,
            sequenceSeed: sequenceSeed, hub: hub, persistence: persistence)
        mqttPairer = MQTTPairer(
            bus: bus, store: store, clock: linkClock, timeout: configuration.pairingTimeout, unixTime: unixTime,
            sequenceSeed: sequenceSeed)
    }

    // MARK: - Lifecycle

    /// Loads the paired devices, subscribes to every device's `out` topic and connects.
    /// When the first connection fails (refused, not authorised, TLS) it throws the bus's
    /// error and leaves the controller stopped, its bus closed.
    public func start() async throws {
        guard !running else { return }
        running = true
        for stored in try await store.loadDevices() {
            guard let profile = library.profile(id: stored.device.profileID) else { continue }
            if stored.ble != nil {
                guard let link = factory.ble(stored, profile: profile, registered: true) else { continue }
                register(link, as: stored.device)
                await link.start()
            } else {
                register(factory.mqtt(stored, profile: profile), as: stored.device)
            }
        }
        let events = bus.busEvents()
        tasks.append(
            Task { [weak self] in
                for await event in events { await self?.handle(event) }
            })
        let store = store
        let persistenceStream = persistenceStream
        tasks.append(
            Task {
                // One writer, so desired states reach the store in the order they changed.
                for await (id, desired) in persistenceStream { try? await store.saveDesired(desired, for: id) }
            })
        let bus = bus
        // Subscribed before connecting, so the first `.connected` comes with the
        // subscription in place and the links' first queries cannot be answered unheard.
        async let subscribed: Void = bus.subscribe(Self.outTopicPrefix + "+")
        do {
            try await bus.connect()
        } catch {
            // The subscription waits for a session that will not come and ignores
            // cancellation, so leaving this scope would hang on it: stopping closes the
            // bus, which fails it. The controller is then stopped; a retry needs a new one.
            await stop()
            _ = try? await subscribed
            throw error
        }
        try await subscribed
    }

    /// Stops every link (waiting commands fail with `stopped`), ends event streams and closes the bus.
    public func stop() async {
        guard running else { return }
        running = false
        for link in links.values { await link.stop() }
        await mqttPairer.cancelAll()
        for task in tasks { task.cancel() }
        tasks = []
        persistence.finish()
        hub.finish()
        await bus.close()
    }

    // MARK: - TuyaControllerProtocol

    public func devices() -> [TuyaDevice] {
        registry.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    public func device(_ id: DeviceID) -> TuyaDevice? { registry[id] }

    public func status(of id: DeviceID) async -> ConnectionStatus? { await links[id]?.status }

    public func confirmedState(of id: DeviceID) async -> DeviceState? { await links[id]?.confirmedState }

    public func pendingState(of id: DeviceID) async -> DeviceState? { await links[id]?.pendingState }

    /// Validates the command against the device's profile, writes all its fields in one
    /// frame and returns the state the device confirms.
    @discardableResult
    public func send(_ command: DeviceCommand, to id: DeviceID) async throws -> DeviceState {
        guard running else { throw ControllerError.stopped }
        guard let link = links[id], let device = registry[id], let profile = library.profile(id: device.profileID)
        else { throw ControllerError.unknownDevice(id.rawValue) }
        let writes: DataPoints
        do throws(MappingError) {
            writes = try DataPointMapper(profile: profile).writes(for: command, current: await link.reported)
        } catch {
            throw ControllerError.invalidCommand(device: id, reason: error.description)
        }
        return try await link.send(writes)
    }

    public nonisolated func events() -> AsyncStream<ControllerEvent> { hub.subscribe() }

    // MARK: - Registry

    /// Forgets a device and its key.
    public func remove(_ id: DeviceID) async throws {
        guard let link = links[id] else { throw ControllerError.unknownDevice(id.rawValue) }
        unregister(id)
        await link.stop()
        try await store.remove(id)
        hub.publish(.deviceRemoved(id))
    }

    /// Changes a device's friendly name (validating and de-duplicating names is the caller's job).
    @discardableResult
    public func rename(_ id: DeviceID, to name: String) async throws -> TuyaDevice {
        guard var device = registry[id] else { throw ControllerError.unknownDevice(id.rawValue) }
        try await store.rename(id, to: name)
        device.name = name
        registry[id] = device
        await links[id]?.rename(name)
        return device
    }

    /// Asks the device for all its values now; its report updates the confirmed state.
    public func refresh(_ id: DeviceID) async throws {
        guard running else { throw ControllerError.stopped }
        guard let link = links[id] else { throw ControllerError.unknownDevice(id.rawValue) }
        await link.refresh()
    }

    /// Every value the device has reported (or that was saved before a restart): what the
    /// gateway records as its confirmed state.
    public func reportedDataPoints(of id: DeviceID) async -> DataPoints? { await links[id]?.reported }

    /// Device frames in and out and connections of the device bus, when the bus counts them.
    public nonisolated var deviceBusStatistics: DeviceBusStatistics.Snapshot? { bus.statistics?.snapshot }

    /// The BLE adapter's connections now (empty lists when BLE cannot be used).
    public func bleConnections() async -> BLEConnectionsSnapshot {
        BLEConnectionsSnapshot(
            adapter: radio.unavailableReason == nil ? radio.adapter : nil, limit: radio.slots.limit,
            connected: await radio.slots.connected.sorted(), waiting: await radio.slots.queued,
            failures: radio.failures.snapshot)
    }

    /// While open, devIds publishing on the broker that are not paired are listed by `pairingCandidates()`.
    public func openPairingWindow() {
        window.open()
    }

    public func closePairingWindow() {
        window.close()
    }

    public func pairingCandidates() -> [PairingCandidate] {
        window.list
    }

    // MARK: - Pairing

    /// Pairs a Wi-Fi device: sends a protocol-31 query encrypted with `localKey` and waits
    /// (up to `pairingTimeout`) for a report that decrypts with it. The profile is
    /// `profileID` when given, else the one listing `productID`, else the closest fit to
    /// the DPs the device reported.
    public func pair(
        devId: String, localKey: String, profileID: String? = nil, name: String? = nil, productID: String? = nil
    ) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        guard let id = DeviceID(devId) else { throw PairingError.invalidDeviceID(devId) }
        let key = try LocalKeyInput.parse(localKey, device: devId)
        if let profileID, library.profile(id: profileID) == nil { throw PairingError.unknownProfile(profileID) }
        guard registry[id] == nil, !pairing.contains(id) else { return .alreadyPaired }
        let request = PairingAttempt.Request(
            id: id, name: name ?? id.rawValue, profileID: profileID, productID: productID)
        return await pairMQTT(MQTTPairingProbe(request: request, key: key, previous: nil, library: library))
    }

    /// Replaces a paired device's local key, after proving it: the device is asked with the
    /// new key and must answer in a way only the right key allows. Its name, profile,
    /// desired and confirmed state carry over. On any other outcome the old key stays in use.
    public func rekey(_ id: DeviceID, localKey: String) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let key = try LocalKeyInput.parse(localKey, device: id.rawValue)
        guard let link = links[id], let device = registry[id], !pairing.contains(id),
            var previous = await link.stored(),
            // The await let other calls run: the device may be gone or pairing by now.
            links[id] != nil, !pairing.contains(id)
        else { throw ControllerError.unknownDevice(id.rawValue) }
        previous.device = device
        if link is BLEDeviceLink, let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        // The device leaves the registry while the new key is tried, so its frames reach the
        // attempt (and a BLE or LAN device is never connected twice).
        unregister(id)
        await link.stop()
        let outcome: PairingOutcome
        if link is BLEDeviceLink {
            var candidate = previous
            candidate.localKey = key
            outcome = await pairBLE(candidate, isRekey: true)
        } else {
            let request = PairingAttempt.Request(
                id: id, name: device.name, profileID: device.profileID, productID: device.productID)
            outcome = await pairMQTT(MQTTPairingProbe(request: request, key: key, previous: previous, library: library))
        }
        if case .paired = outcome { return outcome }
        if running, links[id] == nil, let profile = library.profile(id: device.profileID) {
            await restore(previous, profile: profile)
        }
        return outcome
    }

    /// Pairs a BLE device: connects to `identity`, runs the bind sequence (device info with
    /// the login key, session key, pair with the uuid) and waits (up to
    /// `blePairingTimeout`) for the answer to the first query. The profile is `profileID`
    /// when given, else the BLE profile listing `productID`; it must be known before
    /// connecting, since BLE data points are typed by it. Saved before "paired" is returned.
    public func pairBLE(
        devId: String, localKey: String, identity: BLEIdentity, profileID: String? = nil, name: String? = nil,
        productID: String? = nil
    ) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        guard let id = DeviceID(devId) else { throw PairingError.invalidDeviceID(devId) }
        let key = try LocalKeyInput.parse(localKey, device: devId)
        let profile = try library.bleProfile(profileID: profileID, productID: productID)
        guard profile.transports.contains(.ble) else {
            return .unsupported(reason: "profile \(profile.id) does not list the ble transport")
        }
        if let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        guard registry[id] == nil, !pairing.contains(id) else { return .alreadyPaired }
        let device = TuyaDevice(
            id: id, name: name ?? id.rawValue, profileID: profile.id, category: profile.category, transport: .ble,
            productID: productID)
        return await pairBLE(StoredDevice(device: device, localKey: key, ble: identity), isRekey: false)
    }

    /// Runs an MQTT pairing or rekey through the pairer and, when it paired, registers the
    /// saved device and feeds its link the report that proved the key.
    private func pairMQTT(_ probe: MQTTPairingProbe) async -> PairingOutcome {
        let id = probe.id
        pairing.insert(id)
        window.forget(id)
        let result = await mqttPairer.pair(probe)
        pairing.remove(id)
        // Stopped while saving: it is paired and its link starts with the next start.
        guard let paired = result.paired, running else { return result.outcome }
        let link = factory.mqtt(paired.stored, profile: paired.profile)
        register(link, as: paired.stored.device)
        if probe.previous == nil { hub.publish(.devicePaired(paired.stored.device)) }
        if busConnected { await link.brokerConnected() }
        await link.receive(paired.report)
        return result.outcome
    }

    /// Runs the BLE bind sequence on a link of its own, then saves the device and hands the
    /// connected link to the registry.
    private func pairBLE(_ candidate: StoredDevice, isRekey: Bool) async -> PairingOutcome {
        let id = candidate.device.id
        guard let profile = library.profile(id: candidate.device.profileID),
            let link = factory.ble(candidate, profile: profile, registered: false)
        else { return .notFound(reason: "no BLE address") }
        pairing.insert(id)
        defer { pairing.remove(id) }
        let outcome = await BLEPairing.probe(
            link, device: candidate.device, timeout: configuration.blePairingTimeout, clock: linkClock)
        guard case .paired(let device) = outcome else { return outcome }
        do {
            try await store.save(candidate)
        } catch {
            await link.stop()
            return .notSaved(reason: String(describing: error))
        }
        guard running else {
            // Stopped while pairing: it is paired and its link starts with the next start.
            await link.stop()
            return outcome
        }
        register(link, as: device)
        if !isRekey { hub.publish(.devicePaired(device)) }
        await link.adopt(hub: hub, onDesiredChange: factory.desiredRecorder(for: id))
        return outcome
    }

    /// Puts a device back with its old key after a rekey that did not prove the new one.
    private func restore(_ previous: StoredDevice, profile: DeviceProfile) async {
        if previous.ble != nil {
            guard let link = factory.ble(previous, profile: profile, registered: true) else { return }
            register(link, as: previous.device)
            await link.start()
        } else {
            let link = factory.mqtt(previous, profile: profile)
            register(link, as: previous.device)
            if busConnected { await link.brokerConnected() }
        }
    }

    private func register(_ link: any DeviceLinkDriver, as device: TuyaDevice) {
        links[device.id] = link
        registry[device.id] = device
    }

    private func unregister(_ id: DeviceID) {
        links[id] = nil
        registry[id] = nil
    }

    // MARK: - Bus events

    private func handle(_ event: DeviceBusEvent) async {
        switch event {
        case .connected:
            busConnected = true
            for case let link as MQTTDeviceLink in links.values { await link.brokerConnected() }
        case .disconnected:
            busConnected = false
            for case let link as MQTTDeviceLink in links.values { await link.brokerLost() }
        case .message(let topic, let payload):
            guard topic.hasPrefix(Self.outTopicPrefix),
                let id = DeviceID(String(topic.dropFirst(Self.outTopicPrefix.count)))
            else { return }
            if let link = links[id] {
                await (link as? MQTTDeviceLink)?.receive(payload)
            } else if pairing.contains(id) {
                await mqttPairer.receive(payload, for: id)
            } else if let candidate = window.heard(id, at: Date(timeIntervalSince1970: TimeInterval(unixTime()))) {
                hub.publish(.candidateFound(candidate))
            }
        }
    }
}
