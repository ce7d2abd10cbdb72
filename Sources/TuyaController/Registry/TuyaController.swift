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

    let bus: any DeviceBus
    let radio: BLERadio
    let lan: LANNetwork
    let library: ProfileLibrary
    let store: any DeviceStore
    let configuration: Configuration
    let linkClock: OffsetClock
    let unixTime: @Sendable () -> Int64
    let hub = EventHub()
    let persistence: AsyncStream<(DeviceID, PersistedChange)>.Continuation
    private let persistenceStream: AsyncStream<(DeviceID, PersistedChange)>
    let factory: LinkFactory
    let mqttPairer: MQTTPairer

    /// Paired devices and their links, and the ids being paired now (whatever their
    /// transport: their frames go to the pairing, and a second pairing is refused).
    var registry = DeviceRegistry()
    var window = PairingWindow()
    var sightings = LANSightings()
    /// UDP discovery ports that could not be bound (another program holds them), for `doctor`.
    public private(set) var lanDiscoveryProblems: [LANDiscoveryListener.BindProblem] = []
    /// Paired devices found at `start` that cannot be driven (a profile that did not load, a
    /// stored key or row that cannot be used): not in `devices()`, but still stored, so
    /// fixing a profile brings its devices back at the next start; `remove` forgets them,
    /// and pairing one again drives it.
    public var inactiveDevices: [InactiveDevice] { unloaded.filter { registry.device($0.device.id) == nil } }
    var unloaded: [InactiveDevice] = []
    /// Stored rows found at `start` too damaged to name a device: what each one's problem is.
    public private(set) var unreadableDevices: [String] = []
    var busConnected = false
    /// When the 3.5 solicitation last went out for a failing link (on the link clock).
    var lastSolicitation: Duration?
    var running = false
    var tasks: [Task<Void, Never>] = []

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
        (persistenceStream, persistence) = AsyncStream.makeStream(of: (DeviceID, PersistedChange).self)
        factory = LinkFactory(
            bus: bus, radio: radio, lan: lan, configuration: configuration, clock: linkClock, unixTime: unixTime,
            sequenceSeed: sequenceSeed, hub: hub, store: store, persistence: persistence)
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
        let load = try await store.loadAll()
        unloaded = load.inactive
        unreadableDevices = load.unreadable
        for stored in load.devices {
            guard let profile = library.profile(id: stored.device.profileID) else {
                unloaded.append(InactiveDevice(device: stored.device, reason: .profileNotLoaded))
                continue
            }
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
                // One writer, so desired states and proven LAN addresses reach the store in the
                // order they changed (an address saved by a task of its own could land after a
                // newer one).
                for await (id, change) in persistenceStream {
                    switch change {
                    case .desired(let desired): try? await store.saveDesired(desired, for: id)
                    case .endpoint(let endpoint): try? await store.saveLANEndpoint(endpoint, for: id)
                    }
                }
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
        // At once: a LAN link waits for its device to let the connection go.
        await withTaskGroup(of: Void.self) { group in
            for link in registry.allLinks { group.addTask { await link.stop() } }
        }
        await mqttPairer.cancelAll()
        await lan.discovery?.stop()
        for task in tasks { task.cancel() }
        tasks = []
        persistence.finish()
        hub.finish()
        await bus.close()
    }

    // MARK: - TuyaControllerProtocol

    public func devices() -> [TuyaDevice] { registry.sorted() }

    /// The device with this friendly name, else the one with this id (`<base>/<name>/set`).
    public func device(named name: String) -> TuyaDevice? { registry.device(named: name) }

    public func device(_ id: DeviceID) -> TuyaDevice? { registry.device(id) }

    public func status(of id: DeviceID) async -> ConnectionStatus? { await registry.link(id)?.status }

    public func confirmedState(of id: DeviceID) async -> DeviceState? { await registry.link(id)?.confirmedState }

    public func pendingState(of id: DeviceID) async -> DeviceState? { await registry.link(id)?.pendingState }

    /// Validates the command against the device's profile, writes all its fields in one
    /// frame and returns the state the device confirms.
    ///
    /// Only the lookup runs on the controller's actor; the rest, and the wait for the device's
    /// answer, on the shared pool (or the executor the caller prefers): not on the controller,
    /// which it would otherwise have to hop back onto (a wake-up of the pool per command) just
    /// to return, nor on a caller's actor (the bridge's, busy with every message, delayed each
    /// hop back under load). A caller that awaits each command has them applied in its order;
    /// commands sent concurrently reach the device's link in whichever order they arrive
    /// (`submit` keeps the order of commands that must not wait for each other).
    @discardableResult
    public nonisolated func send(_ command: DeviceCommand, to id: DeviceID) async throws -> DeviceState {
        let route = try await route(to: id)
        return try await route.link.send(
            command, mapper: route.mapper, failFastWhenOffline: route.failFastWhenOffline)
    }

    /// Writes data points as they are (a maintenance rule's `reset_dp`), once the device's
    /// profile says each is declared, writable, and fits the value. Write-only DPs are never
    /// reported, so the link sends them without waiting for a confirmation or re-applying them,
    /// as it does for any command.
    public nonisolated func write(_ dataPoints: DataPoints, to id: DeviceID) async throws -> DeviceState {
        let route = try await route(to: id)
        let profile = route.mapper.profile
        for dp in dataPoints.keys.sorted() where profile.dataPoint(dp)?.access == .readOnly {
            throw ControllerError.invalidCommand(device: id, reason: "\(dp) of \(profile.id) is read-only")
        }
        if let issue = route.mapper.validate(dataPoints).first {
            throw ControllerError.invalidCommand(device: id, reason: "\(issue) in \(profile.id)")
        }
        return try await route.link.send(dataPoints)
    }

    /// `send` in two steps: returns once the command is on its way to the device's link
    /// (handed to the link's executor, behind everything handed to it before), with its
    /// confirmation still to await. Commands submitted one after another reach the link, and
    /// are coalesced there, in that order without waiting for each other's confirmations;
    /// `pendingState` read after `submit` returns includes the command (it queues behind
    /// it). An invalid command or an offline device comes out of the receipt, as from `send`.
    public nonisolated func submit(_ command: DeviceCommand, to id: DeviceID) async throws -> CommandReceipt {
        let route = try await route(to: id)
        return CommandReceipt(
            await route.link.submit(command, mapper: route.mapper, failFastWhenOffline: route.failFastWhenOffline))
    }

    /// The executor on which a task sending to this device runs best (see
    /// `DeviceLinkDriver.taskExecutor`), for `withTaskExecutorPreference` around a caller that
    /// sends many commands to one device; nil for an unknown device or when none is better.
    /// A BLE link's changes with each connection: one kept past a reconnect still works, as any
    /// other executor would.
    ///
    /// Everything such a task does runs on that thread, and so do the default actors it enters
    /// (this controller's, for the lookup in `send`): Swift's runtime then runs what other
    /// tasks queued on such an actor there too, and lets them go on there until they suspend.
    /// Use it around a loop of commands to one device, not around work that may block or take
    /// long: the thread also reads the device's connection (and, for LAN, other devices').
    public func preferredExecutor(for id: DeviceID) -> (any TaskExecutor)? {
        registry.link(id)?.taskExecutor
    }

    private func route(
        to id: DeviceID
    ) throws -> (link: any DeviceLinkDriver, mapper: DataPointMapper, failFastWhenOffline: Bool) {
        guard running else { throw ControllerError.stopped }
        guard let link = registry.link(id), let device = registry.device(id),
            let profile = library.profile(id: device.profileID)
        else { throw ControllerError.unknownDevice(id.rawValue) }
        // A device that stopped answering is said at once rather than after a confirmation
        // timeout; the link still keeps the command as the desired state, so a device back soon
        // gets it. (While the broker itself is down a command waits for it: that is brief.)
        return (link, DataPointMapper(profile: profile), device.transport != .ble)
    }

    public nonisolated func events() -> Mailbox<ControllerEvent> { hub.subscribe() }

    // MARK: - Registry

    /// Forgets a device and its key.
    public func remove(_ id: DeviceID) async throws {
        guard let link = registry.link(id) else {
            guard unloaded.contains(where: { $0.device.id == id }) else {
                throw ControllerError.unknownDevice(id.rawValue)
            }
            try await store.remove(id)
            unloaded.removeAll { $0.device.id == id }
            hub.publish(.deviceRemoved(id))
            return
        }
        unloaded.removeAll { $0.device.id == id }
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

    /// Registers a stored device's link and starts it: at start, and to put a device back
    /// with its old key after a rekey that did not prove the new one.
    func restore(_ stored: StoredDevice, profile: DeviceProfile, versionUnproven: Bool = false) async {
        if stored.ble != nil {
            guard let link = factory.ble(stored, profile: profile, registered: true) else { return }
            registry.register(link, as: stored.device)
            await link.start()
        } else if stored.lan != nil {
            guard
                let link = factory.lan(
                    stored, profile: profile, registered: true, onReprobe: reprober, versionUnproven: versionUnproven)
            else {
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
