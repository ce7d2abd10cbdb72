import Timing
import Foundation
import LANLink
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
    static let outTopicPrefix = "smart/device/out/"

    private let bus: any DeviceBus
    private let radio: BLERadio
    private let lan: LANNetwork
    let library: ProfileLibrary
    private let store: any DeviceStore
    private let configuration: Configuration
    private let linkClock: OffsetClock
    private let unixTime: @Sendable () -> Int64
    private let hub = EventHub()
    private let persistence: AsyncStream<(DeviceID, DataPoints)>.Continuation
    private let persistenceStream: AsyncStream<(DeviceID, DataPoints)>
    private let factory: LinkFactory
    private let mqttPairer: MQTTPairer

    /// Paired devices and their links, and the ids being paired now (whatever their
    /// transport: their frames go to the pairing, and a second pairing is refused).
    private var registry = DeviceRegistry()
    private var window = PairingWindow()
    private var sightings = LANSightings()
    /// UDP discovery ports that could not be bound (another program holds them), for `doctor`.
    public private(set) var lanDiscoveryProblems: [LANDiscoveryListener.BindProblem] = []
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
        radio: BLERadio = .unavailable(reason: "BLE is not set up"), lan: LANNetwork = LANNetwork(),
        configuration: Configuration = Configuration(), clock: any Clock<Duration> = ContinuousClock(),
        unixTime: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        sequenceSeed: @escaping @Sendable () -> UInt32 = { UInt32.random(in: 0...0xffff) }
    ) {
        self.bus = bus
        self.radio = radio
        self.lan = lan
        self.library = library
        self.store = store
        self.configuration = configuration
        let linkClock = OffsetClock(clock)
        self.linkClock = linkClock
        self.unixTime = unixTime
        (persistenceStream, persistence) = AsyncStream.makeStream(of: (DeviceID, DataPoints).self)
        factory = LinkFactory(
            bus: bus, radio: radio, lan: lan, configuration: configuration, clock: linkClock, unixTime: unixTime,
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
            await restore(stored, profile: profile)
        }
        if let discovery = lan.discovery {
            lanDiscoveryProblems = await discovery.start()
            let datagrams = discovery.datagrams
            tasks.append(
                Task { [weak self] in
                    for await datagram in datagrams { await self?.heard(datagram) }
                })
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
        for link in registry.allLinks { await link.stop() }
        await mqttPairer.cancelAll()
        await lan.discovery?.stop()
        for task in tasks { task.cancel() }
        tasks = []
        persistence.finish()
        hub.finish()
        await bus.close()
    }

    // MARK: - TuyaControllerProtocol

    public func devices() -> [TuyaDevice] { registry.sorted }

    public func device(_ id: DeviceID) -> TuyaDevice? { registry.device(id) }

    public func status(of id: DeviceID) async -> ConnectionStatus? { await registry.link(id)?.status }

    public func confirmedState(of id: DeviceID) async -> DeviceState? { await registry.link(id)?.confirmedState }

    public func pendingState(of id: DeviceID) async -> DeviceState? { await registry.link(id)?.pendingState }

    /// Validates the command against the device's profile, writes all its fields in one
    /// frame and returns the state the device confirms.
    @discardableResult
    public func send(_ command: DeviceCommand, to id: DeviceID) async throws -> DeviceState {
        guard running else { throw ControllerError.stopped }
        guard let link = registry.link(id), let device = registry.device(id),
            let profile = library.profile(id: device.profileID)
        else { throw ControllerError.unknownDevice(id.rawValue) }
        let writes: DataPoints
        do throws(MappingError) {
            writes = try DataPointMapper(profile: profile).writes(for: command, current: await link.reported)
        } catch {
            throw ControllerError.invalidCommand(device: id, reason: error.description)
        }
        // A device that stopped answering is said at once rather than after a confirmation
        // timeout; the link still keeps the command as the desired state, so a device back soon
        // gets it. (While the broker itself is down a command waits for it: that is brief.)
        if device.transport != .ble, case let status = await link.status, status.availability == .offline,
            status.hint != AvailabilityTracker.brokerLostHint
        {
            Task { _ = try? await link.send(writes) }
            throw ControllerError.offline(device: id, lastSeen: status.lastSeen, hint: status.hint)
        }
        return try await link.send(writes)
    }

    public nonisolated func events() -> AsyncStream<ControllerEvent> { hub.subscribe() }

    // MARK: - Registry

    /// Forgets a device and its key.
    public func remove(_ id: DeviceID) async throws {
        guard let link = registry.link(id) else { throw ControllerError.unknownDevice(id.rawValue) }
        registry.unregister(id)
        await link.stop()
        try await store.remove(id)
        hub.publish(.deviceRemoved(id))
    }

    /// Changes a device's friendly name (validating and de-duplicating names is the caller's job).
    @discardableResult
    public func rename(_ id: DeviceID, to name: String) async throws -> TuyaDevice {
        guard var device = registry.device(id) else { throw ControllerError.unknownDevice(id.rawValue) }
        try await store.rename(id, to: name)
        device.name = name
        registry.rename(id, to: name)
        await registry.link(id)?.rename(name)
        return device
    }

    /// Asks the device for all its values now; its report updates the confirmed state.
    public func refresh(_ id: DeviceID) async throws {
        guard running else { throw ControllerError.stopped }
        guard let link = registry.link(id) else { throw ControllerError.unknownDevice(id.rawValue) }
        await link.refresh()
    }

    /// Every value the device has reported (or that was saved before a restart): what the
    /// gateway records as its confirmed state.
    public func reportedDataPoints(of id: DeviceID) async -> DataPoints? { await registry.link(id)?.reported }

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
        for sighting in sightings.all where registry.isFree(sighting.id) {
            if let candidate = window.heard(sighting.id, at: sighting.lastSeen, lan: sighting) {
                hub.publish(.candidateFound(candidate))
            }
        }
        // 3.5 devices may only answer when asked (TUYA.md §2.1): ask once per window.
        let lan = lan
        Task { await lan.solicit() }
    }

    /// Every LAN device heard broadcasting since start, paired or not.
    public func lanSightings() -> [LANSighting] { sightings.all }

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
        let (id, key) = try PairingInput.parse(devId: devId, localKey: localKey, profileID: profileID, library: library)
        guard registry.isFree(id) else { return .alreadyPaired }
        let request = PairingAttempt.Request(
            id: id, name: name ?? id.rawValue, profileID: profileID, productID: productID)
        return await pairMQTT(MQTTPairingProbe(request: request, key: key, previous: nil, library: library))
    }

    /// Replaces a paired device's local key, after proving it: the device is asked with the
    /// new key and must answer in a way only the right key allows. Its name, profile,
    /// desired and confirmed state carry over. On any other outcome the old key stays in use.
    public func rekey(_ id: DeviceID, localKey: String) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let key = try PairingInput.key(localKey, device: id.rawValue)
        guard let link = registry.link(id), let device = registry.device(id), var previous = await link.stored(),
            // The await let other calls run: the device may be gone by now.
            registry.link(id) != nil
        else { throw ControllerError.unknownDevice(id.rawValue) }
        previous.device = device
        if link is BLEDeviceLink, let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        // The device leaves the registry while the new key is tried, so its frames reach the
        // attempt (and a BLE or LAN device is never connected twice); it is marked as pairing
        // at once, so nothing else starts pairing it meanwhile.
        registry.unregister(id)
        registry.beginPairing(id)
        await link.stop()
        let outcome: PairingOutcome
        if link is BLEDeviceLink {
            var candidate = previous
            candidate.localKey = key
            outcome = await pairBLE(candidate, isRekey: true)
        } else if let endpoint = previous.lan {
            let request = PairingAttempt.Request(
                id: id, name: device.name, profileID: device.profileID, productID: device.productID, transport: .lan)
            outcome = await pairLAN(request, key: key, endpoint: endpoint, previous: previous)
        } else {
            let request = PairingAttempt.Request(
                id: id, name: device.name, profileID: device.profileID, productID: device.productID)
            outcome = await pairMQTT(MQTTPairingProbe(request: request, key: key, previous: previous, library: library))
        }
        if case .paired = outcome { return outcome }
        if running, registry.isFree(id), let profile = library.profile(id: device.profileID) {
            await restore(previous, profile: profile)
        }
        return outcome
    }

    /// Pairs a stock Tuya Wi-Fi device over the LAN protocol: connects to `ip` (else the
    /// address it broadcast from), agrees a session key for 3.4/3.5 (the device's answer
    /// proves the key), reads its DPs and picks its profile (`profileID`, else the one
    /// listing `productID` or the product key it broadcast, else the closest fit). The
    /// version is `version`, else the one it broadcast. Saved before "paired" is returned.
    public func pairLAN(
        devId: String, localKey: String, ip: String? = nil, version: String? = nil, profileID: String? = nil,
        name: String? = nil, productID: String? = nil
    ) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let (id, key) = try PairingInput.parse(devId: devId, localKey: localKey, profileID: profileID, library: library)
        guard registry.isFree(id) else { return .alreadyPaired }
        let sighting = sightings.sighting(of: id)
        let endpoint: LANEndpoint
        switch LANPairing.endpoint(
            id: id, ip: ip, version: version, sighting: sighting, sourceID: UInt32.random(in: 1...UInt32.max))
        {
        case .proceed(let found): endpoint = found
        case .stop(let outcome): return outcome
        }
        let request = PairingAttempt.Request(
            id: id, name: name ?? id.rawValue, profileID: profileID, productID: productID ?? sighting?.productKey,
            transport: .lan)
        return await pairLAN(request, key: key, endpoint: endpoint, previous: nil)
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
        let (id, key) = try PairingInput.parse(devId: devId, localKey: localKey, library: library)
        let profile = try library.bleProfile(profileID: profileID, productID: productID)
        guard profile.transports.contains(.ble) else {
            return .unsupported(reason: "profile \(profile.id) does not list the ble transport")
        }
        if let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        guard registry.isFree(id) else { return .alreadyPaired }
        let device = TuyaDevice(
            id: id, name: name ?? id.rawValue, profileID: profile.id, category: profile.category, transport: .ble,
            productID: productID)
        return await pairBLE(StoredDevice(device: device, localKey: key, ble: identity), isRekey: false)
    }

    /// Runs an MQTT pairing or rekey through the pairer and, when it paired, registers the
    /// saved device and feeds its link the report that proved the key.
    private func pairMQTT(_ probe: MQTTPairingProbe) async -> PairingOutcome {
        let id = probe.id
        registry.beginPairing(id)
        window.forget(id)
        let result = await mqttPairer.pair(probe)
        registry.endPairing(id)
        // Stopped while saving: it is paired and its link starts with the next start.
        guard let paired = result.paired, running else { return result.outcome }
        let link = factory.mqtt(paired.stored, profile: paired.profile)
        registry.register(link, as: paired.stored.device)
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
        registry.beginPairing(id)
        defer { registry.endPairing(id) }
        let outcome = await BLEPairing.pair(
            candidate, on: link, store: store, timeout: configuration.blePairingTimeout, clock: linkClock)
        guard case .paired(let device) = outcome else { return outcome }
        guard running else {
            // Stopped while pairing: it is paired and its link starts with the next start.
            await link.stop()
            return outcome
        }
        registry.register(link, as: device)
        if !isRekey { hub.publish(.devicePaired(device)) }
        await link.adopt(hub: hub, onDesiredChange: factory.desiredRecorder(for: id))
        return outcome
    }

    /// Probes a LAN device on a link of its own, picks its profile from what it reported,
    /// saves it, and registers a link of the real profile, which connects after the probe's
    /// connection closed (never beside it).
    private func pairLAN(
        _ request: PairingAttempt.Request, key: AESKey, endpoint: LANEndpoint, previous: StoredDevice?
    ) async -> PairingOutcome {
        registry.beginPairing(request.id)
        window.forget(request.id)
        defer { registry.endPairing(request.id) }
        let pairer = LANPairing(
            factory: factory, library: library, store: store, timeout: configuration.lanPairingTimeout, clock: linkClock
        )
        let (stored, profile): (StoredDevice, DeviceProfile)
        switch await pairer.pair(request, key: key, endpoint: endpoint, previous: previous) {
        case .proceed(let paired): (stored, profile) = paired
        case .stop(let outcome): return outcome
        }
        // Stopped while pairing: it is paired and its link starts with the next start.
        guard running else { return .paired(stored.device) }
        await restore(stored, profile: profile)
        if previous == nil { hub.publish(.devicePaired(stored.device)) }
        return .paired(stored.device)
    }

    /// A datagram on a discovery port: a paired device's address follows its broadcasts; an
    /// unknown device is a candidate while the pairing window is open.
    private func heard(_ datagram: LANDatagram) async {
        let now = Date(timeIntervalSince1970: TimeInterval(unixTime()))
        guard let sighting = LANSightings.decode(datagram.bytes, source: datagram.source, at: now),
            let change = sightings.record(sighting)
        else { return }
        let id = sighting.id
        if let link = registry.link(id) as? LANDeviceLink {
            guard case .moved = change, await link.addressChanged(to: sighting.ip) else { return }
            if let endpoint = await link.stored()?.lan { try? await store.saveLANEndpoint(endpoint, for: id) }
        } else if registry.isFree(id), let candidate = window.heard(id, at: now, lan: sighting) {
            hub.publish(.candidateFound(candidate))
        }
    }

    /// Called by a LAN link after repeated connection failures: when the device's latest
    /// broadcast gives another address or version than the link uses, the link is replaced
    /// by one that uses them (never by trying each version's frames in turn).
    private var reprober: @Sendable (DeviceID) -> Void {
        { [weak self] id in Task { await self?.reprobe(id) } }
    }

    private func reprobe(_ id: DeviceID) async {
        guard running, let link = registry.link(id) as? LANDeviceLink, let sighting = sightings.sighting(of: id),
            var stored = await link.stored(), let endpoint = stored.lan, registry.link(id) === link,
            sighting.ip != endpoint.ip || sighting.version != endpoint.version,
            let profile = library.profile(id: stored.device.profileID),
            let checked = try? LANEndpoint(ip: sighting.ip, version: sighting.version, sourceID: endpoint.sourceID)
        else { return }
        stored.lan = checked
        try? await store.saveLANEndpoint(checked, for: id)
        registry.unregister(id)
        await link.stop()
        if running, registry.isFree(id) { await restore(stored, profile: profile) }
    }

    /// Registers a stored device's link and starts it: at start, and to put a device back
    /// with its old key after a rekey that did not prove the new one.
    private func restore(_ stored: StoredDevice, profile: DeviceProfile) async {
        if stored.ble != nil {
            guard let link = factory.ble(stored, profile: profile, registered: true) else { return }
            registry.register(link, as: stored.device)
            await link.start()
        } else if stored.lan != nil {
            guard let link = factory.lan(stored, profile: profile, registered: true, onReprobe: reprober) else {
                return
            }
            registry.register(link, as: stored.device)
            await link.start()
        } else {
            let link = factory.mqtt(stored, profile: profile)
            registry.register(link, as: stored.device)
            if busConnected { await link.brokerConnected() }
        }
    }

    // MARK: - Bus events

    private func handle(_ event: DeviceBusEvent) async {
        switch event {
        case .connected:
            busConnected = true
            for link in registry.links(of: MQTTDeviceLink.self) { await link.brokerConnected() }
        case .disconnected:
            busConnected = false
            for link in registry.links(of: MQTTDeviceLink.self) { await link.brokerLost() }
        case .message(let topic, let payload):
            guard topic.hasPrefix(Self.outTopicPrefix),
                let id = DeviceID(String(topic.dropFirst(Self.outTopicPrefix.count)))
            else { return }
            if let link = registry.link(id) {
                await (link as? MQTTDeviceLink)?.receive(payload)
            } else if registry.isPairing(id) {
                await mqttPairer.receive(payload, for: id)
            } else if let candidate = window.heard(id, at: Date(timeIntervalSince1970: TimeInterval(unixTime()))) {
                hub.publish(.candidateFound(candidate))
            }
        }
    }
}
