import Foundation
import TuyaCore

/// One change of a reminder, with its time and cause, for the store's history.
/// A snooze keeps the status (`from == to`) but is recorded all the same.
public struct ReminderTransition: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Why a reminder changed.
    public enum Cause: Codable, Hashable, Sendable, CustomStringConvertible {
        /// The device was registered with this rule; the cycle starts.
        case registered
        /// A fault bit with this label was raised.
        case fault(String)
        /// The faults behind the reminder cleared (the device refilled, for example).
        case faultCleared
        /// Usage of a capability (raw value, `mist`) crossed a threshold.
        case usage(String)
        /// Days since the task was last done crossed a threshold.
        case calendar
        /// The task was marked done.
        case done
        case snoozed(until: Date)
        case snoozeEnded

        public var description: String {
            switch self {
            case .registered: "registered"
            case .fault(let label): "fault \(label)"
            case .faultCleared: "fault cleared"
            case .usage(let capability): "\(capability) usage"
            case .calendar: "calendar"
            case .done: "done"
            case .snoozed(let until): "snoozed until \(until.formatted(.iso8601))"
            case .snoozeEnded: "snooze ended"
            }
        }
    }

    public var key: ReminderKey
    public var from: ReminderStatus
    public var to: ReminderStatus
    public var at: Date
    public var cause: Cause

    public var description: String { "\(key): \(from) → \(to) (\(cause))" }
}
