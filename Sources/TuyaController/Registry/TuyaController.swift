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
    private let sequenceSeed: @Sendable () -> UInt32
    private let hub = EventHub()
    private let persistence: AsyncStream<(DeviceID, DataPoints)>.Continuation
    private let persistenceStream: AsyncStream<(DeviceID, DataPoints)>

    private var links: [DeviceID: any DeviceLinkDriver] = [:]
    private var registry: [DeviceID: TuyaDevice] = [:]
    private var pairings: [DeviceID: PendingPairing] = [:]
    /// BLE devices being paired (or rekeyed) now.
    private var blePairings: Set<DeviceID> = []
    private var candidates: [DeviceID: PairingCandidate] = [:]
    private var pairingWindowOpen = false
    private var busConnected = false
    private var running = false
    private var tasks: [Task<Void, Never>] = []

    /// A pairing under way: its key, its decision core and its waiting caller.
    private struct PendingPairing {
        var key: AESKey
        /// For a rekey: the device as it was, whose name, profile and state carry over.
        var previous: StoredDevice?
        /// The device answered and is being saved: frames and the deadline no longer decide.
        var saving = false
        var attempt: PairingAttempt
        var waiter: CheckedContinuation<PairingOutcome, Never>?
        var deadline: Task<Void, Never>?
    }

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
        linkClock = OffsetClock(clock)
        self.unixTime = unixTime
        self.sequenceSeed = sequenceSeed
        (persistenceStream, persistence) = AsyncStream.makeStream(of: (DeviceID, DataPoints).self)
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
                guard let link = addBLELink(stored, profile: profile) else { continue }
                await link.start()
            } else {
                addLink(stored, profile: profile)
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
        for id in Array(pairings.keys) { finishPairing(id, outcome: .noAnswer) }
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
        guard let link = links.removeValue(forKey: id) else { throw ControllerError.unknownDevice(id.rawValue) }
        registry[id] = nil
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
        pairingWindowOpen = true
    }

    public func closePairingWindow() {
        pairingWindowOpen = false
        candidates = [:]
    }

    public func pairingCandidates() -> [PairingCandidate] {
        candidates.values.sorted { $0.firstSeen < $1.firstSeen || ($0.firstSeen == $1.firstSeen && $0.id < $1.id) }
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
        let key: AESKey
        do throws(WireError) {
            key = try AESKey(localKey: localKey)
        } catch {
            throw PairingError.invalidLocalKey(device: devId, reason: "it must be 16 characters")
        }
        if let profileID, library.profile(id: profileID) == nil { throw PairingError.unknownProfile(profileID) }
        guard registry[id] == nil, pairings[id] == nil else { return .alreadyPaired }
        let request = PairingAttempt.Request(
            id: id, name: name ?? id.rawValue, profileID: profileID, productID: productID)
        return await attemptPairing(request, key: key, previous: nil)
    }

    /// Replaces a paired device's local key, after proving it: the device is queried with
    /// the new key and must answer with a report that decrypts. Its name, profile, desired
    /// and confirmed state carry over. On any other outcome the old key stays in use.
    public func rekey(_ id: DeviceID, localKey: String) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let key: AESKey
        do throws(WireError) {
            key = try AESKey(localKey: localKey)
        } catch {
            throw PairingError.invalidLocalKey(device: id.rawValue, reason: "it must be 16 characters")
        }
        guard let anyLink = links[id], let device = registry[id], pairings[id] == nil, !blePairings.contains(id) else {
            throw ControllerError.unknownDevice(id.rawValue)
        }
        if let ble = anyLink as? BLEDeviceLink { return try await rekeyBLE(id, link: ble, device: device, key: key) }
        guard let link = anyLink as? MQTTDeviceLink, var previous = await link.stored() else {
            throw ControllerError.unknownDevice(id.rawValue)
        }
        previous.device = device
        // The device leaves the registry while its new key is tried, so its frames reach the attempt.
        links[id] = nil
        registry[id] = nil
        await link.stop()
        let request = PairingAttempt.Request(
            id: id, name: device.name, profileID: device.profileID, productID: device.productID)
        let outcome = await attemptPairing(request, key: key, previous: previous)
        if case .paired = outcome { return outcome }
        if running, links[id] == nil, let profile = library.profile(id: device.profileID) {
            let restored = addLink(previous, profile: profile)
            if busConnected { await restored.brokerConnected() }
        }
        return outcome
    }

    // MARK: - BLE pairing

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
        let key: AESKey
        do throws(WireError) {
            key = try AESKey(localKey: localKey)
        } catch {
            throw PairingError.invalidLocalKey(device: devId, reason: "it must be 16 characters")
        }
        let profile: DeviceProfile
        if let profileID {
            guard let named = library.profile(id: profileID) else { throw PairingError.unknownProfile(profileID) }
            profile = named
        } else if let productID,
            let listed = library.profiles(forProductID: productID).first(where: { $0.transports.contains(.ble) })
        {
            profile = listed
        } else {
            throw PairingError.bleProfileNeeded(productID: productID)
        }
        guard profile.transports.contains(.ble) else {
            return .unsupported(reason: "profile \(profile.id) does not list the ble transport")
        }
        if let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        guard registry[id] == nil, pairings[id] == nil, !blePairings.contains(id) else { return .alreadyPaired }
        let device = TuyaDevice(
            id: id, name: name ?? id.rawValue, profileID: profile.id, category: profile.category, transport: .ble,
            productID: productID)
        return await attemptBLEPairing(
            StoredDevice(device: device, localKey: key, ble: identity), profile: profile, isRekey: false)
    }

    private func rekeyBLE(_ id: DeviceID, link: BLEDeviceLink, device: TuyaDevice, key: AESKey) async throws
        -> PairingOutcome
    {
        guard var previous = await link.stored(), let profile = library.profile(id: device.profileID) else {
            throw ControllerError.unknownDevice(id.rawValue)
        }
        previous.device = device
        if let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        // The old link lets go of the device (one connection per device) while the new key is tried.
        links[id] = nil
        registry[id] = nil
        await link.stop()
        var candidate = previous
        candidate.localKey = key
        let outcome = await attemptBLEPairing(candidate, profile: profile, isRekey: true)
        if case .paired = outcome { return outcome }
        if running, links[id] == nil, let restored = addBLELink(previous, profile: profile) {
            await restored.start()
        }
        return outcome
    }

    /// Runs the bind sequence on a link of its own (events go to a private hub until it
    /// pairs, so nobody hears of a device that is not paired), then saves the device and
    /// hands the connected link to the registry.
    private func attemptBLEPairing(_ candidate: StoredDevice, profile: DeviceProfile, isRekey: Bool) async
        -> PairingOutcome
    {
        let id = candidate.device.id
        guard let identity = candidate.ble else { return .notFound(reason: "no BLE address") }
        blePairings.insert(id)
        defer { blePairings.remove(id) }
        let link = makeBLELink(candidate, identity: identity, profile: profile, hub: EventHub(), persist: false)
        await link.start()
        let sleepUntil = linkClock.sleepUntil
        let deadline = linkClock.now() + configuration.blePairingTimeout
        let timer = Task {
            do { try await sleepUntil(deadline) } catch { return }
            await link.stop()
        }
        let result = await link.probe()
        timer.cancel()
        let outcome: PairingOutcome
        switch result {
        case .answered:
            outcome = .paired(candidate.device)
        case .stopped:
            outcome = .noAnswer
        case .failed(let error):
            switch error {
            case .refused: outcome = .refused
            case .wrongKey, .deviceInfoUnanswered: outcome = .wrongKey
            case .connectFailed(let reason): outcome = .notFound(reason: reason)
            case .unsupportedProtocol: outcome = .unsupported(reason: error.description)
            default: outcome = .noAnswer
            }
        }
        guard case .paired(let device) = outcome else {
            await link.stop()
            return outcome
        }
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
        links[id] = link
        registry[id] = device
        if !isRekey { hub.publish(.devicePaired(device)) }
        await link.adopt(hub: hub, onDesiredChange: desiredRecorder(for: id))
        return outcome
    }

    /// A BLE link in the registry for a stored device; nil when it has no BLE identity.
    private func addBLELink(_ stored: StoredDevice, profile: DeviceProfile) -> BLEDeviceLink? {
        guard let identity = stored.ble else { return nil }
        let link = makeBLELink(stored, identity: identity, profile: profile, hub: hub, persist: true)
        links[stored.device.id] = link
        registry[stored.device.id] = stored.device
        return link
    }

    private func makeBLELink(
        _ stored: StoredDevice, identity: BLEIdentity, profile: DeviceProfile, hub: EventHub, persist: Bool
    ) -> BLEDeviceLink {
        let id = stored.device.id
        var linkConfiguration = BLEDeviceLink.Configuration()
        linkConfiguration.confirmationTimeout = configuration.bleConfirmationTimeout
        let unixTime = unixTime
        let credentials = BLESession.Credentials(
            uuid: identity.uuid, localKey: String(decoding: stored.localKey.bytes, as: UTF8.self), devId: id.rawValue)
        var onDesiredChange: @Sendable (DataPoints) -> Void = { _ in }
        if persist { onDesiredChange = desiredRecorder(for: id) }
        return BLEDeviceLink(
            device: stored.device,
            credentials: credentials, profile: profile, identity: identity, transport: radio.makeTransport(identity),
            slots: radio.slots,
            configuration: linkConfiguration, clock: linkClock, unixMilliseconds: { unixTime() * 1000 },
            desired: stored.desired, confirmed: stored.confirmed, hub: hub, failures: radio.failures,
            onDesiredChange: onDesiredChange)
    }

    private func desiredRecorder(for id: DeviceID) -> @Sendable (DataPoints) -> Void {
        let persistence = persistence
        return { desired in persistence.yield((id, desired)) }
    }

    private func attemptPairing(
        _ request: PairingAttempt.Request, key: AESKey, previous: StoredDevice?
    ) async -> PairingOutcome {
        let id = request.id
        pairings[id] = PendingPairing(
            key: key, previous: previous, attempt: PairingAttempt(request: request, library: library))
        candidates[id] = nil

        let body = TuyaEnvelope.query(dpIDs: nil).encode(timestamp: unixTime())
        let frame: [UInt8]
        do {
            frame = try MQTTFrame.encode(
                body: body, key: key, sequence: sequenceSeed() & 0xffff, source: MQTTDeviceLink.gatewaySource)
        } catch {
            pairings[id] = nil
            return .noAnswer
        }
        let bus = bus
        let topic = "smart/device/in/\(id.rawValue)"
        let timeout = configuration.pairingTimeout
        let sleepUntil = linkClock.sleepUntil
        let deadline = linkClock.now() + timeout
        return await withCheckedContinuation { waiter in
            pairings[id]?.waiter = waiter
            pairings[id]?.deadline = Task { [weak self] in
                do { try await sleepUntil(deadline) } catch { return }
                await self?.pairingDeadlinePassed(id)
            }
            Task { try? await bus.publish(topic: topic, payload: frame) }
        }
    }

    /// Parses a tinytuya `devices.json` and pairs its devices, `importConcurrency` at a
    /// time: enough to hide each pairing's round trip, few enough that a 1,000-device
    /// import does not hold 1,000 pairing attempts (and their frames) in memory at once.
    /// Returns each entry with its outcome, in file order.
    public func importTinyTuya(devicesJSON: [UInt8]) async throws -> [(TinyTuyaImport.Entry, PairingOutcome)] {
        let entries = try TinyTuyaImport.parse(devicesJSON)
        return try await withThrowingTaskGroup(of: (Int, PairingOutcome).self) { group in
            var outcomes: [Int: PairingOutcome] = [:]
            var next = 0
            func startNext() {
                guard next < entries.count else { return }
                let index = next
                let entry = entries[index]
                next += 1
                group.addTask {
                    let outcome = try await self.pair(
                        devId: entry.id.rawValue, localKey: entry.localKey, name: entry.name,
                        productID: entry.productID)
                    return (index, outcome)
                }
            }
            for _ in 0..<Self.importConcurrency { startNext() }
            for try await (index, outcome) in group {
                outcomes[index] = outcome
                startNext()
            }
            return entries.enumerated().map { index, entry in (entry, outcomes[index] ?? .noAnswer) }
        }
    }

    /// Pairings in flight during an import.
    static let importConcurrency = 32

    private func pairingDeadlinePassed(_ id: DeviceID) {
        guard let pending = pairings[id], !pending.saving else { return }
        finishPairing(id, outcome: pending.attempt.outcomeAtDeadline)
    }

    private func finishPairing(_ id: DeviceID, outcome: PairingOutcome) {
        guard let pending = pairings.removeValue(forKey: id) else { return }
        pending.deadline?.cancel()
        pending.waiter?.resume(returning: outcome)
    }

    private func receivePairingFrame(_ payload: [UInt8], for id: DeviceID) async {
        guard var pending = pairings[id], !pending.saving else { return }
        let body: [UInt8]
        do throws(WireError) {
            body = try MQTTFrame.decode(payload, key: pending.key).body
        } catch {
            // An intact frame on this device's own topic that the key cannot open: the key
            // is wrong, and waiting out the deadline would tell the user nothing more.
            if case .keyMismatch = error {
                pending.attempt.receivedKeyMismatch()
                finishPairing(id, outcome: pending.attempt.outcomeAtDeadline)
            }
            return
        }
        guard let (envelope, _) = try? TuyaEnvelope.decode(body), case .report(let devId, let dps, _) = envelope,
            devId == nil || devId == id.rawValue
        else { return }
        let dpIDs = Set(dps.keys.compactMap { DataPointID(jsonKey: $0) })
        let (outcome, profile) = pending.attempt.receivedReport(dpIDs: dpIDs)
        guard case .paired(let device) = outcome, let profile else {
            finishPairing(id, outcome: outcome)
            return
        }
        // Saved before the caller hears "paired": a device the user was told is paired survives
        // a crash that follows, and a failed save is reported instead of swallowed. While it
        // is saved, `saving` keeps further frames, the deadline and a second pair call out.
        let stored = StoredDevice(
            device: device, localKey: pending.key, desired: pending.previous?.desired ?? [:],
            confirmed: pending.previous?.confirmed ?? [:])
        pairings[id]?.saving = true
        do {
            try await store.save(stored)
        } catch {
            finishPairing(id, outcome: .notSaved(reason: String(describing: error)))
            return
        }
        guard running else {
            // Stopped while saving: it is paired and its link starts with the next start.
            finishPairing(id, outcome: outcome)
            return
        }
        let link = addLink(stored, profile: profile)
        finishPairing(id, outcome: outcome)
        if pending.previous == nil { hub.publish(.devicePaired(device)) }
        if busConnected { await link.brokerConnected() }
        await link.receive(payload)
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
            } else if pairings[id] != nil {
                await receivePairingFrame(payload, for: id)
            } else if pairingWindowOpen {
                noteCandidate(id)
            }
        }
    }

    private func noteCandidate(_ id: DeviceID) {
        let now = Date(timeIntervalSince1970: TimeInterval(unixTime()))
        if var candidate = candidates[id] {
            candidate.lastSeen = now
            candidate.frames += 1
            candidates[id] = candidate
        } else if candidates.count < 1024 {
            // Bounded: a hostile publisher inventing devIds cannot grow this without limit.
            let candidate = PairingCandidate(id: id, firstSeen: now, lastSeen: now, frames: 1)
            candidates[id] = candidate
            hub.publish(.candidateFound(candidate))
        }
    }

    @discardableResult
    private func addLink(_ stored: StoredDevice, profile: DeviceProfile) -> MQTTDeviceLink {
        let id = stored.device.id
        let link = MQTTDeviceLink(
            device: stored.device, key: stored.localKey, profile: profile, bus: bus,
            configuration: .init(
                confirmationTimeout: configuration.confirmationTimeout,
                availability: .init(
                    queryInterval: configuration.queryInterval,
                    maxUnansweredQueries: configuration.maxUnansweredQueries,
                    silenceTimeout: configuration.silenceTimeout)),
            clock: linkClock, unixTime: unixTime, sequenceSeed: sequenceSeed(), desired: stored.desired,
            confirmed: stored.confirmed, hub: hub,
            onDesiredChange: desiredRecorder(for: id))
        links[id] = link
        registry[id] = stored.device
        return link
    }
}
