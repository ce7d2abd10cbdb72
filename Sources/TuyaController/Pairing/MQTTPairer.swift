import Timing
import TuyaCore
import TuyaWire

/// Runs MQTT pairings and rekeys: sends each attempt's query with the candidate key, hands
/// it the frames the controller routes here, saves the device once a report proves the key
/// (before anyone hears "paired", so a crash that follows cannot lose it), and answers the
/// waiting caller. The controller keeps the registry: it marks an id as pairing, routes that
/// id's frames here, and adds the link when the result says paired.
actor MQTTPairer {
    /// How an attempt ended; `paired` carries what the controller needs to add the link.
    struct Result: Sendable {
        var outcome: PairingOutcome
        var paired: Paired?
    }

    struct Paired: Sendable {
        var stored: StoredDevice
        var profile: DeviceProfile
        /// The report that proved the key: the new link reads the state from it.
        var report: [UInt8]
    }

    private struct Entry {
        var probe: MQTTPairingProbe
        var waiter: CheckedContinuation<Result, Never>?
        var deadline: Task<Void, Never>?
        /// The device answered and is being saved: frames and the deadline no longer decide.
        var saving = false
    }

    private let bus: any DeviceBus
    private let store: any DeviceStore
    private let clock: OffsetClock
    private let timeout: Duration
    private let unixTime: @Sendable () -> Int64
    private let sequenceSeed: @Sendable () -> UInt32
    private var entries: [DeviceID: Entry] = [:]

    init(
        bus: any DeviceBus, store: any DeviceStore, clock: OffsetClock, timeout: Duration,
        unixTime: @escaping @Sendable () -> Int64, sequenceSeed: @escaping @Sendable () -> UInt32
    ) {
        self.bus = bus
        self.store = store
        self.clock = clock
        self.timeout = timeout
        self.unixTime = unixTime
        self.sequenceSeed = sequenceSeed
    }

    /// Sends the probe's query and waits (up to the pairing timeout) for its outcome.
    func pair(_ probe: MQTTPairingProbe) async -> Result {
        let id = probe.id
        guard entries[id] == nil,
            let frame = try? probe.query(timestamp: unixTime(), sequence: sequenceSeed() & 0xffff)
        else { return Result(outcome: .noAnswer) }
        entries[id] = Entry(probe: probe)
        let bus = bus
        let sleepUntil = clock.sleepUntil
        let deadline = clock.now() + timeout
        return await withCheckedContinuation { waiter in
            entries[id]?.waiter = waiter
            entries[id]?.deadline = Task { [weak self] in
                do { try await sleepUntil(deadline) } catch { return }
                await self?.deadlinePassed(id)
            }
            bus.send(topic: "smart/device/in/\(id.rawValue)", payload: frame)
        }
    }

    /// A payload from the device's `out` topic while it is being paired.
    func receive(_ payload: [UInt8], for id: DeviceID) async {
        guard var entry = entries[id], !entry.saving else { return }
        let decision = entry.probe.receive(payload)
        entries[id]?.probe = entry.probe
        switch decision {
        case .ignore:
            return
        case .finish(let outcome):
            finish(id, Result(outcome: outcome))
        case .save(let stored, let profile):
            entry.saving = true
            entries[id]?.saving = true
            do {
                try await store.save(stored)
            } catch {
                finish(id, Result(outcome: .notSaved(reason: String(describing: error))))
                return
            }
            finish(
                id,
                Result(
                    outcome: .paired(stored.device), paired: Paired(stored: stored, profile: profile, report: payload))
            )
        }
    }

    /// Ends every attempt with `noAnswer` (the controller is stopping).
    func cancelAll() {
        for id in Array(entries.keys) { finish(id, Result(outcome: .noAnswer)) }
    }

    private func deadlinePassed(_ id: DeviceID) {
        guard let entry = entries[id], !entry.saving else { return }
        finish(id, Result(outcome: entry.probe.attempt.outcomeAtDeadline))
    }

    private func finish(_ id: DeviceID, _ result: Result) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        entry.deadline?.cancel()
        entry.waiter?.resume(returning: result)
    }
}
