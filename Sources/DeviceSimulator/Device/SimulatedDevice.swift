import TuyaCore
import TuyaWire

/// One simulated Tuya Wi-Fi device as a pure state machine: MQTT payloads and the passing
/// of time go in, actions (publish a report, drop or restore the connection) come out.
/// The swarm glue (`SimulatedDeviceLink`) performs the actions; tests drive it with
/// explicit times and never sleep.
///
/// It follows the Tuya MQTT device protocol (protocol/TUYA.md §3): a protocol-5 command
/// writes `data.dps`, a protocol-31 query asks for every DP (or `data.dpId`), and the
/// device answers with a protocol-4 report `{"devId":…,"dps":{…},"t":…}` in a "2.2"
/// frame encrypted with its local key. Frames it cannot decrypt or parse, unknown DPs
/// and values the profile does not allow are ignored, as firmware ignores them: the
/// device never traps on input and never answers with an error.
///
/// Time is a `Duration` since the simulation started; `unixEpoch` anchors the `t` field.
public struct SimulatedDevice: Sendable {
    /// What the caller must do on the device's behalf.
    public enum Action: Hashable, Sendable {
        /// Publish this frame on `smart/device/out/<devId>`.
        case publish(Report)
        /// Drop the broker connection (the device went offline).
        case disconnect
        /// Connect again (the device came back).
        case connect
    }

    /// A protocol-4 report: the values it carries, the encrypted frame and why it was sent.
    public struct Report: Hashable, Sendable {
        /// What made the device report: a transport that answers queries in their own
        /// frame (the LAN simulator) tells answers from pushes by it.
        public enum Cause: Hashable, Sendable {
            case command
            case query
            /// Timer ticks, the tank running dry, a refill.
            case spontaneous
            case connected
        }

        public let dataPoints: DataPoints
        public let timestamp: Int64
        /// The report's "2.2" frame; empty from a device made with `mqttFrames: false`.
        public let payload: [UInt8]
        public let cause: Cause
    }

    /// Counters a test or the demo reads to see what the device did with its input.
    public struct Statistics: Hashable, Sendable {
        public var framesReceived = 0
        /// Protocol-5 commands with at least one accepted DP.
        public var commandsApplied = 0
        public var queriesAnswered = 0
        /// Undecryptable or unparsable frames, other protocols, commands with nothing valid.
        public var framesIgnored = 0
        /// Commands and queries dropped by `Misbehaviour.dropShare`.
        public var framesDropped = 0
        /// Frames that arrived while the device was deaf from flooding.
        public var framesFlooded = 0
        public var reportsPublished = 0
    }

    public let devId: String
    public let profile: DeviceProfile
    public var behaviour: DeviceBehaviour
    public var misbehaviour: Misbehaviour
    public private(set) var state: DataPoints
    public private(set) var isOnline = true
    public private(set) var statistics = Statistics()
    public private(set) var now: Duration = .zero
    /// Misting time left in the tank.
    public internal(set) var waterLeft: Duration

    let roles: Roles
    /// Whether reports carry their MQTT frame: the BLE and LAN simulators read only the
    /// values, and encrypting a frame nobody sends was a third of the BLE simulator's work.
    private let mqttFrames: Bool
    private let key: AESKey
    private let unixEpoch: Int64
    private var random: SeededGenerator
    private var sequence: UInt32
    private var pending: [PendingReport] = []
    var timerEnd: Duration?
    private var recentFrames: [Duration] = []
    private var deafUntil: Duration?
    private var backOnlineAt: Duration?

    private struct PendingReport: Sendable {
        var due: Duration
        var ids: [DataPointID]
        var cause: Report.Cause
    }

    /// Throws when `localKey` is not 16 characters. `mqttFrames` false leaves reports'
    /// `payload` empty (a device behind another transport).
    public init(
        devId: String, localKey: String, profile: DeviceProfile, behaviour: DeviceBehaviour = DeviceBehaviour(),
        misbehaviour: Misbehaviour = Misbehaviour(), seed: UInt64 = 0, unixEpoch: Int64 = 1_700_000_000,
        mqttFrames: Bool = true
    ) throws(WireError) {
        self.mqttFrames = mqttFrames
        self.devId = devId
        self.profile = profile
        self.behaviour = behaviour
        self.misbehaviour = misbehaviour
        self.unixEpoch = unixEpoch
        key = try AESKey(localKey: localKey)
        var state: DataPoints = [:]
        for spec in profile.dataPoints {
            state[spec.id] = DataPointRules.initialValue(for: spec, in: profile)
        }
        self.state = state
        roles = Roles(profile: profile)
        waterLeft = behaviour.tankDuration
        random = SeededGenerator(seed: seed)
        // TCK starts the sequence at rand() & 0xffff (protocol/TUYA.md §3.2).
        sequence = UInt32(truncatingIfNeeded: random.next() & 0xFFFF)
    }

    /// The next time `advance(to:)` has something to do, if any.
    /// Allocation-free: the swarm asks every device for it on each turn of its loop.
    public var nextDeadline: Duration? {
        var earliest = backOnlineAt
        for report in pending where earliest.map({ report.due < $0 }) ?? true {
            earliest = report.due
        }
        if let tick = nextTimerTick, earliest.map({ tick < $0 }) ?? true { earliest = tick }
        if let empty = tankEmptyTime, earliest.map({ empty < $0 }) ?? true { earliest = empty }
        return earliest
    }

    /// Handles one payload that arrived on `smart/device/in/<devId>`.
    public mutating func receive(_ payload: [UInt8], at time: Duration) -> [Action] {
        let envelope = (try? MQTTFrame.decode(payload, key: key)).flatMap { try? TuyaEnvelope.decode($0.body).envelope }
        return handle(envelope, at: time)
    }

    /// Handles a command or query another transport has already decrypted (the LAN
    /// simulator), with the same rules, misbehaviour and reports as an MQTT frame.
    public mutating func receive(envelope: TuyaEnvelope, at time: Duration) -> [Action] {
        handle(envelope, at: time)
    }

    /// `envelope` is nil for a frame the device could not decrypt or parse.
    private mutating func handle(_ envelope: TuyaEnvelope?, at time: Duration) -> [Action] {
        var actions = advance(to: time)
        statistics.framesReceived += 1
        guard isOnline else {
            statistics.framesIgnored += 1
            return actions
        }
        guard !isFlooded() else {
            statistics.framesFlooded += 1
            return actions
        }
        guard let envelope else {
            statistics.framesIgnored += 1
            return actions
        }
        switch envelope {
        case .command(let dps):
            guard !dropsThisOne() else { break }
            let changed = apply(dps)
            guard !changed.isEmpty else {
                statistics.framesIgnored += 1
                break
            }
            statistics.commandsApplied += 1
            schedule(changed, cause: .command)
        case .query(let requested):
            guard !dropsThisOne() else { break }
            let ids =
                requested.map { list in list.compactMap { DataPointID($0) }.filter { state[$0] != nil } }
                ?? state.keys.sorted()
            guard !ids.isEmpty else {
                statistics.framesIgnored += 1
                break
            }
            statistics.queriesAnswered += 1
            schedule(ids, cause: .query)
        default:
            statistics.framesIgnored += 1
        }
        actions += fireDueEvents()
        return actions
    }

    /// Moves the device's clock forward, firing due reports, timer ticks, the tank
    /// running dry and a return from offline, in time order. Earlier times are ignored.
    public mutating func advance(to time: Duration) -> [Action] {
        var actions: [Action] = []
        let target = max(time, now)
        while let next = nextDeadline, next <= target {
            moveClock(to: next)
            actions += fireDueEvents()
        }
        moveClock(to: target)
        return actions
    }

    /// The broker accepted the connection: like real firmware, report every DP.
    public mutating func connected(at time: Duration) -> [Action] {
        var actions = advance(to: time)
        guard isOnline else { return actions + [.disconnect] }
        if let report = makeReport(state.keys.sorted(), cause: .connected) { actions.append(report) }
        return actions
    }

    /// Goes offline (drops the connection and stops answering), back after `duration`
    /// or, when nil, at `comeOnline(at:)`. Reports not yet sent are lost.
    public mutating func goOffline(at time: Duration, for duration: Duration? = nil) -> [Action] {
        var actions = advance(to: time)
        isOnline = false
        pending.removeAll()
        backOnlineAt = duration.map { now + $0 }
        actions.append(.disconnect)
        return actions
    }

    public mutating func comeOnline(at time: Duration) -> [Action] {
        var actions = advance(to: time)
        guard !isOnline else { return actions }
        isOnline = true
        backOnlineAt = nil
        actions.append(.connect)
        return actions
    }

    // MARK: - Commands

    /// Writes every acceptable DP and returns the ids to report: the accepted ones plus
    /// any the device changed as a consequence (timer → minutes left, empty tank → fault).
    private mutating func apply(_ dps: [String: JSONValue]) -> [DataPointID] {
        let (values, _) = DataPointJSON.decode(dps, profile: profile)
        var accepted: [DataPointID] = []
        for (id, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let spec = profile.dataPoint(id), DataPointRules.acceptsWrite(value, for: spec) else { continue }
            state[id] = value
            accepted.append(id)
        }
        guard !accepted.isEmpty else { return [] }
        var reported = Set(accepted)
        reported.formUnion(applyDiffuserSideEffects(of: Set(accepted)))
        return reported.sorted()
    }

    private mutating func dropsThisOne() -> Bool {
        guard misbehaviour.dropShare > 0 else { return false }
        guard Double.random(in: 0..<1, using: &random) < misbehaviour.dropShare else { return false }
        statistics.framesDropped += 1
        return true
    }

    /// Counts the frame against the flood limit; true while the device is deaf.
    private mutating func isFlooded() -> Bool {
        guard let limit = misbehaviour.floodLimit else { return false }
        if let deafUntil, now < deafUntil { return true }
        deafUntil = nil
        recentFrames.removeAll { $0 <= now - limit.window }
        recentFrames.append(now)
        guard recentFrames.count > limit.frames else { return false }
        recentFrames.removeAll()
        deafUntil = now + limit.silence
        return true
    }

    // MARK: - Reports

    private mutating func schedule(_ ids: [DataPointID], cause: Report.Cause) {
        pending.append(PendingReport(due: now + behaviour.reportDelay, ids: ids, cause: cause))
    }

    /// Publishes a report outside the command/answer cycle (timer ticks, faults).
    mutating func reportSpontaneously(_ ids: [DataPointID]) -> [Action] {
        guard !ids.isEmpty, let report = makeReport(ids.sorted(), cause: .spontaneous) else { return [] }
        return [report]
    }

    private mutating func fireDueEvents() -> [Action] {
        var actions: [Action] = []
        if let backOnlineAt, backOnlineAt <= now {
            self.backOnlineAt = nil
            isOnline = true
            actions.append(.connect)
        }
        while let index = pending.firstIndex(where: { $0.due <= now }) {
            let due = pending.remove(at: index)
            if let report = makeReport(due.ids, cause: due.cause) { actions.append(report) }
        }
        actions += fireDiffuserEvents()
        return actions
    }

    private mutating func makeReport(_ ids: [DataPointID], cause: Report.Cause) -> Action? {
        guard isOnline else { return nil }
        var values: DataPoints = [:]
        for id in ids { values[id] = state[id] }
        guard !values.isEmpty else { return nil }
        let timestamp = unixEpoch + now.components.seconds
        sequence &+= 1
        var payload: [UInt8] = []
        if mqttFrames {
            let body = TuyaEnvelope.report(devId: devId, dps: DataPointJSON.encode(values), t: timestamp)
                .encode(timestamp: timestamp)
            let reportKey = misbehaviour.wrongKey.flatMap { try? AESKey(localKey: $0) } ?? key
            guard
                let frame = try? MQTTFrame.encode(
                    body: body, key: reportKey, sequence: sequence, source: MQTTFrame.deviceSource)
            else { return nil }
            payload = frame
        }
        statistics.reportsPublished += 1
        return .publish(Report(dataPoints: values, timestamp: timestamp, payload: payload, cause: cause))
    }

    private mutating func moveClock(to time: Duration) {
        guard time > now else { return }
        drainWater(until: time)
        now = time
    }

    mutating func set(_ id: DataPointID?, _ value: DPValue) -> DataPointID? {
        guard let id, state[id] != nil, state[id] != value else { return nil }
        state[id] = value
        return id
    }
}
