import Foundation
import TuyaCore

/// Everything the scheduler remembers about one reminder. Codable: the store keeps it, so
/// a restart neither forgets a due reminder nor repeats its alert.
public struct ReminderState: Codable, Hashable, Sendable {
    /// The alert last produced for this reminder: its status and round.
    public struct AlertMark: Codable, Hashable, Sendable {
        public var status: ReminderStatus
        public var round: Int

        public init(status: ReminderStatus, round: Int) {
            self.status = status
            self.round = round
        }
    }

    public var key: ReminderKey
    public var status: ReminderStatus
    /// When `status` was entered.
    public var statusSince: Date
    /// Start of the current cycle: when the task was last done, or when the device was first
    /// registered. Calendar triggers count days from here.
    public var lastDone: Date
    /// The usage counter's seconds per capability (raw value) at `lastDone`; usage triggers
    /// count the difference.
    public var usageAtLastDone: [String: Double]
    /// Fault labels of this rule's triggers that are raised now and count.
    public var activeFaults: Set<String>
    /// When the first of `activeFaults` was raised, for "overdue". Kept when they clear, so
    /// a fault raised again within the policy's flap window counts from its first raise.
    public var faultRaisedAt: Date?
    /// When this rule's faults last cleared on the device (nil once done, or never): a raise
    /// soon after is the same fault flapping, not a new round.
    public var faultClearedAt: Date?
    /// Faults that were raised when the task was marked done: they do not count again until
    /// the device reports them cleared (a refill clears the fault on the device's next report).
    public var acknowledgedFaults: Set<String>
    /// Alerts are held back until then.
    public var snoozedUntil: Date?
    /// Counts alerting rounds: it grows when the reminder leaves `ok` and when a snooze
    /// ends, so each round may alert again; within a round each status alerts once.
    public var round: Int
    public var alerted: AlertMark?
    /// Set by "done", cleared when the reminder next leaves `ok`: a second "done" in the same
    /// cycle changes nothing.
    public var doneThisCycle: Bool

    public init(key: ReminderKey, createdAt: Date, usage: [String: Double] = [:]) {
        self.key = key
        self.status = .ok
        self.statusSince = createdAt
        self.lastDone = createdAt
        self.usageAtLastDone = usage
        self.activeFaults = []
        self.faultRaisedAt = nil
        self.faultClearedAt = nil
        self.acknowledgedFaults = []
        self.snoozedUntil = nil
        self.round = 0
        self.alerted = nil
        self.doneThisCycle = false
    }

    /// Whether an alert for the current status is still to be produced: not ok, not
    /// snoozed, and not already alerted at this or a higher status in this round.
    public var needsAlert: Bool {
        guard status != .ok, snoozedUntil == nil else { return false }
        guard let alerted, alerted.round == round else { return true }
        return status > alerted.status
    }
}
