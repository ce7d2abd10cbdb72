import Foundation
import TuyaCore

/// One line of `maintenance list`, and what `open` shows for a maintenance link: the
/// reminder's state, how much is left ("% remaining", never "% used") and the instructions.
public struct ReminderReport: Hashable, Sendable {
    public var key: ReminderKey
    public var status: ReminderStatus
    /// 0...100: the share of the most advanced usage or calendar interval still left,
    /// rounded down; 0 while a fault counts; 100 for a fault-only rule with no fault.
    public var percentRemaining: Int
    /// When a calendar trigger falls due (or a counted fault was raised). Usage hours are
    /// not projected into a date: nil for a usage-only rule.
    public var nextDue: Date?
    public var snoozedUntil: Date?
    public var lastDone: Date
    public var title: String
    public var body: String
    public var steps: [String]
    /// Whether marking it done also writes a reset DP to the device.
    public var resetsDevice: Bool

    public init(
        key: ReminderKey, status: ReminderStatus, percentRemaining: Int, nextDue: Date?, snoozedUntil: Date?,
        lastDone: Date, title: String, body: String, steps: [String], resetsDevice: Bool
    ) {
        self.key = key
        self.status = status
        self.percentRemaining = percentRemaining
        self.nextDue = nextDue
        self.snoozedUntil = snoozedUntil
        self.lastDone = lastDone
        self.title = title
        self.body = body
        self.steps = steps
        self.resetsDevice = resetsDevice
    }
}
