import Foundation
import TuyaCore

/// What a rule's triggers say about one reminder at one moment: the most urgent status any
/// trigger reaches (the first trigger wins a tie), the share left before the task is due,
/// and the date it falls due when a calendar or fault trigger fixes one.
struct ReminderAssessment: Hashable, Sendable {
    var status: ReminderStatus
    /// The trigger that decided `status`; nil when every trigger is `ok`.
    var cause: ReminderTransition.Cause?
    /// 0...1 of the interval left, the smallest over the triggers; 0 while a fault counts.
    var remaining: Double
    var nextDue: Date?

    /// - Parameter usage: the usage counter's seconds per capability now.
    init(
        rule: MaintenanceRuleSpec, state: ReminderState, usage: [Capability: Double], at now: Date,
        policy: ReminderPolicy
    ) {
        status = .ok
        cause = nil
        remaining = 1
        nextDue = nil
        for trigger in rule.triggers {
            let level: ReminderStatus
            let triggerCause: ReminderTransition.Cause
            switch trigger {
            case .fault(let label):
                guard state.activeFaults.contains(label) else { continue }
                let raised = state.faultRaisedAt ?? now
                level = now.timeIntervalSince(raised) >= policy.faultOverdueAfter ? .overdue : .due
                triggerCause = .fault(label)
                remaining = 0
                nextDue = min(nextDue ?? raised, raised)
            case .usageHours(let hours, let capability):
                let used = max(0, (usage[capability] ?? 0) - (state.usageAtLastDone[capability.rawValue] ?? 0))
                let fraction = used / (Double(hours) * 3600)
                level = Self.level(fraction, share: rule.dueSoonShare, policy: policy)
                triggerCause = .usage(capability.rawValue)
                remaining = min(remaining, max(0, 1 - fraction))
            case .days(let days):
                let interval = Double(days) * 86_400
                let fraction = max(0, now.timeIntervalSince(state.lastDone)) / interval
                level = Self.level(fraction, share: rule.dueSoonShare, policy: policy)
                triggerCause = .calendar
                remaining = min(remaining, max(0, 1 - fraction))
                let due = state.lastDone.addingTimeInterval(interval)
                nextDue = min(nextDue ?? due, due)
            }
            if level > status {
                status = level
                cause = triggerCause
            }
        }
    }

    /// Whole percent left, rounded down so a report never promises more than is left.
    var percentRemaining: Int { Int((remaining * 100).rounded(.down)) }

    static func level(_ fraction: Double, share: Double, policy: ReminderPolicy) -> ReminderStatus {
        if fraction >= policy.overdueFactor { return .overdue }
        if fraction >= 1 { return .due }
        if fraction >= share { return .dueSoon }
        return .ok
    }
}
