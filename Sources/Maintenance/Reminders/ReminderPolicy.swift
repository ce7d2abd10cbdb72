import Foundation

/// The timing rules that are not in a profile: when "due" becomes "overdue", and how long
/// a snooze may last. The defaults are the documented behaviour (devices/README.md).
public struct ReminderPolicy: Hashable, Sendable {
    /// A usage or calendar trigger is overdue once this multiple of its interval has passed
    /// (1.5: a 14-day clean is overdue on day 21).
    public var overdueFactor: Double
    /// A fault trigger is overdue once its fault has stayed raised this long.
    public var faultOverdueAfter: TimeInterval
    /// The longest snooze accepted.
    public var maximumSnooze: TimeInterval
    /// A fault that clears and is raised again within this many seconds continues the round
    /// it alerted in: a chattering water sensor near empty sends one alert, not one per flap.
    public var faultFlapWindow: TimeInterval

    public init(
        overdueFactor: Double = 1.5, faultOverdueAfter: TimeInterval = 86_400,
        maximumSnooze: TimeInterval = 90 * 86_400,
        faultFlapWindow: TimeInterval = 600
    ) {
        self.overdueFactor = overdueFactor
        self.faultOverdueAfter = faultOverdueAfter
        self.maximumSnooze = maximumSnooze
        self.faultFlapWindow = faultFlapWindow
    }
}
