import Foundation
import TuyaCore

/// The state machine behind every reminder: ok → due soon → due → overdue, with snooze and
/// done. Pure: each call carries the time and the inputs it needs (usage seconds from a
/// `UsageCounter`, the faults from the latest report) and returns the transitions for the
/// caller to store. States are Codable and restored through `init(states:)`.
///
/// Decisions (devices/README.md documents them for profile authors):
/// - Triggers race: the most urgent status any trigger reaches wins.
/// - A fault trigger is due at once, with no "due soon". It stays due until the task is
///   marked done or the device reports the fault cleared; a cleared fault is not a "done"
///   (usage and calendar counters keep running). A fault raised again within the policy's
///   `faultFlapWindow` of clearing continues its round: no second alert, and "overdue"
///   still counts from its first raise. A fault raised when the task was marked
///   done is ignored until the device reports it cleared, then counts again.
/// - Usage and calendar triggers are due soon at the rule's `dueSoonShare` of the interval,
///   due at the interval and overdue at `policy.overdueFactor` × the interval.
/// - "done" restarts the cycle (calendar and usage baselines), clears a snooze and returns
///   the rule's reset write; a second "done" before the reminder next leaves `ok` changes
///   nothing and returns no write.
/// - A snooze keeps the status but holds alerts back until it ends; when it ends, the
///   reminder alerts again if it is still not `ok`.
public struct ReminderScheduler: Hashable, Sendable {
    public var policy: ReminderPolicy
    private var rulesByDevice: [DeviceID: [MaintenanceRuleSpec]] = [:]
    private var statesByKey: [ReminderKey: ReminderState]

    /// - Parameter states: states restored from the store; a device's rules come with `register`.
    public init(policy: ReminderPolicy = ReminderPolicy(), states: [ReminderState] = []) {
        self.policy = policy
        self.statesByKey = Dictionary(states.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Every reminder state, registered or restored, sorted by key.
    public var states: [ReminderState] { statesByKey.values.sorted { $0.key < $1.key } }

    public func state(of key: ReminderKey) -> ReminderState? { statesByKey[key] }

    /// The rules a registered device has, in profile order.
    public func rules(of device: DeviceID) -> [MaintenanceRuleSpec]? { rulesByDevice[device] }

    public var devices: [DeviceID] { rulesByDevice.keys.sorted() }

    /// Starts tracking a device's rules. A reminder restored from the store keeps its state;
    /// a new one starts its cycle now, with the current usage as baseline.
    public mutating func register(
        _ device: DeviceID, rules: [MaintenanceRuleSpec], usage: [Capability: Double], at now: Date
    ) -> [ReminderTransition] {
        rulesByDevice[device] = rules
        var transitions: [ReminderTransition] = []
        for rule in rules {
            let key = ReminderKey(device: device, type: rule.type)
            guard statesByKey[key] == nil else { continue }
            statesByKey[key] = ReminderState(key: key, createdAt: now, usage: Self.stored(usage))
            transitions.append(ReminderTransition(key: key, from: .ok, to: .ok, at: now, cause: .registered))
        }
        return transitions
    }

    /// Stops tracking a removed device and drops its states.
    public mutating func forget(_ device: DeviceID) {
        rulesByDevice[device] = nil
        statesByKey = statesByKey.filter { $0.key.device != device }
    }

    /// Re-evaluates a device's reminders.
    /// - Parameter faults: the fault labels raised in the latest report, or nil when unknown
    ///   (no report since a restart, or the device is offline): fault triggers then stay as
    ///   they were.
    public mutating func evaluate(
        _ device: DeviceID, usage: [Capability: Double], faults: Set<String>?, at now: Date
    ) -> [ReminderTransition] {
        guard let rules = rulesByDevice[device] else { return [] }
        var transitions: [ReminderTransition] = []
        for rule in rules {
            let key = ReminderKey(device: device, type: rule.type)
            guard var state = statesByKey[key] else { continue }
            if let until = state.snoozedUntil, now >= until {
                state.snoozedUntil = nil
                state.round &+= 1  // Compared for equality only: a stored round at Int.max wraps, not traps.
                transitions.append(
                    ReminderTransition(key: key, from: state.status, to: state.status, at: now, cause: .snoozeEnded))
            }
            var faultsCleared = false
            // Whether the faults were raised again soon after they cleared.
            var flapped = false
            if let faults {
                state.acknowledgedFaults.formIntersection(faults)
                let active = Set(rule.faultLabels).intersection(faults).subtracting(state.acknowledgedFaults)
                faultsCleared = active.isEmpty && !state.activeFaults.isEmpty
                if faultsCleared { state.faultClearedAt = now }
                if !active.isEmpty, state.activeFaults.isEmpty {
                    if let cleared = state.faultClearedAt, state.faultRaisedAt != nil,
                        now.timeIntervalSince(cleared) < policy.faultFlapWindow
                    {
                        flapped = true
                    } else {
                        state.faultRaisedAt = now
                    }
                    state.faultClearedAt = nil
                }
                state.activeFaults = active
            }
            let assessment = ReminderAssessment(rule: rule, state: state, usage: usage, at: now, policy: policy)
            // A clock behind the state's last change (a Pi booting at 1970, before NTP) cannot
            // lower it: its calendar would fall back to ok, to alert again as a new round once
            // the clock is set. A fault raised or cleared at the device still counts.
            let clockBehind = now < state.statusSince && assessment.status < state.status && !faultsCleared
            if assessment.status != state.status, !clockBehind {
                let cause: ReminderTransition.Cause =
                    faultsCleared && assessment.status < state.status
                    ? .faultCleared : assessment.cause ?? .calendar
                if state.status == .ok {
                    // A flapping fault stays in the round it alerted in.
                    if !(flapped && assessment.cause.isFault) { state.round &+= 1 }
                    state.doneThisCycle = false
                }
                transitions.append(
                    ReminderTransition(key: key, from: state.status, to: assessment.status, at: now, cause: cause))
                state.status = assessment.status
                state.statusSince = now
            }
            statesByKey[key] = state
        }
        return transitions
    }

    /// The wall clock stepped: the times taken in the old frame (a task done, a device
    /// registered, a fault raised while the clock was wrong) move with it. A snooze set then
    /// keeps its end: when it was set is not kept.
    public mutating func clockStepped(_ step: ClockStepDetector.Step) {
        for (key, var state) in statesByKey {
            state.statusSince = step.carried(state.statusSince)
            state.lastDone = step.carried(state.lastDone)
            state.faultRaisedAt = state.faultRaisedAt.map(step.carried)
            state.faultClearedAt = state.faultClearedAt.map(step.carried)
            statesByKey[key] = state
        }
    }

    /// What "done" did: the transition (nil when it changed nothing) and the write that resets
    /// the device's own counter (nil when the rule has none, or nothing changed).
    public struct DoneOutcome: Hashable, Sendable {
        public var transition: ReminderTransition?
        public var reset: MaintenanceReset?
    }

    /// Marks a task done: the cycle restarts now. Idempotent within a cycle (see the type's notes).
    /// - Parameter faults: the faults raised now, when known; they are acknowledged.
    public mutating func markDone(
        _ key: ReminderKey, usage: [Capability: Double], faults: Set<String>?, at now: Date
    ) throws(MaintenanceError) -> DoneOutcome {
        let rule = try self.rule(for: key)
        guard var state = statesByKey[key] else { throw .unknownDevice(key.device) }
        if state.doneThisCycle, state.status == .ok {
            return DoneOutcome(transition: nil, reset: nil)
        }
        let transition = ReminderTransition(key: key, from: state.status, to: .ok, at: now, cause: .done)
        state.acknowledgedFaults.formUnion(state.activeFaults)
        if let faults { state.acknowledgedFaults.formUnion(Set(rule.faultLabels).intersection(faults)) }
        state.activeFaults = []
        state.faultRaisedAt = nil
        state.faultClearedAt = nil
        state.lastDone = now
        state.usageAtLastDone = Self.stored(usage)
        state.snoozedUntil = nil
        state.status = .ok
        state.statusSince = now
        state.doneThisCycle = true
        statesByKey[key] = state
        return DoneOutcome(transition: transition, reset: rule.reset)
    }

    /// Holds a reminder's alerts back for `duration` from `now`.
    public mutating func snooze(_ key: ReminderKey, for duration: Duration, at now: Date) throws(MaintenanceError)
        -> ReminderTransition
    {
        _ = try rule(for: key)
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        guard seconds > 0, seconds <= policy.maximumSnooze else {
            throw .invalidSnooze(seconds: seconds, maximumSeconds: policy.maximumSnooze)
        }
        guard var state = statesByKey[key] else { throw .unknownDevice(key.device) }
        let until = now.addingTimeInterval(seconds)
        state.snoozedUntil = until
        statesByKey[key] = state
        return ReminderTransition(
            key: key, from: state.status, to: state.status, at: now, cause: .snoozed(until: until))
    }

    /// Records that an alert was produced for the reminder's current status.
    mutating func markAlerted(_ key: ReminderKey) {
        guard var state = statesByKey[key] else { return }
        state.alerted = ReminderState.AlertMark(status: state.status, round: state.round)
        statesByKey[key] = state
    }

    /// The report for one reminder of a registered device.
    public func report(_ key: ReminderKey, usage: [Capability: Double], at now: Date) throws(MaintenanceError)
        -> ReminderReport
    {
        let rule = try self.rule(for: key)
        guard let state = statesByKey[key] else { throw .unknownDevice(key.device) }
        let assessment = ReminderAssessment(rule: rule, state: state, usage: usage, at: now, policy: policy)
        return ReminderReport(
            key: key, status: state.status, percentRemaining: assessment.percentRemaining,
            nextDue: assessment.nextDue, snoozedUntil: state.snoozedUntil, lastDone: state.lastDone,
            title: rule.title, body: rule.body, steps: rule.steps, resetsDevice: rule.reset != nil)
    }

    func rule(for key: ReminderKey) throws(MaintenanceError) -> MaintenanceRuleSpec {
        guard let rules = rulesByDevice[key.device] else { throw .unknownDevice(key.device) }
        guard let rule = rules.first(where: { $0.type == key.type }) else {
            throw .unknownType(key.type, device: key.device, known: rules.map(\.type))
        }
        return rule
    }

    static func stored(_ usage: [Capability: Double]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: usage.map { ($0.key.rawValue, $0.value) })
    }
}

extension ReminderTransition.Cause? {
    fileprivate var isFault: Bool {
        if case .fault? = self { true } else { false }
    }
}

extension MaintenanceRuleSpec {
    /// Labels of the rule's fault triggers.
    var faultLabels: [String] {
        triggers.compactMap { trigger in
            if case .fault(let label) = trigger { label } else { nil }
        }
    }
}
