import Foundation

/// Totals and streaks over completed sessions (`timer history`). Pure: the caller passes
/// the sessions, the time zone that decides what a day is, and now.
public struct SessionHistory: Hashable, Sendable {
    /// Completed sessions (stopped and interrupted ones do not count).
    public var completedSessions: Int
    /// Time in completed sessions.
    public var totalTime: Duration
    /// Consecutive local days with a completed session, ending today or yesterday (a
    /// streak is not broken before the day is over); zero otherwise.
    public var currentStreak: Int
    public var longestStreak: Int
    /// The local day of the latest completed session up to today.
    public var lastDay: LocalDay?

    public init(sessions: [SessionSummary], timeZone: TimeZone, now: Date) {
        let completed = sessions.filter { $0.state == .completed }
        completedSessions = completed.count
        totalTime = completed.reduce(.zero) { $0 + $1.duration }
        let today = LocalDay(now, in: timeZone).number
        // A session dated after today (a clock that ran ahead, a hand edit) is counted in the
        // totals but not in streaks: it would otherwise end the current streak until its date.
        let days = Set(completed.map { LocalDay($0.startedAt, in: timeZone).number }).sorted().filter { $0 <= today }
        var longest = 0
        var run = 0
        var previous: Int?
        for day in days {
            run = previous.map { day == $0 + 1 } == true ? run + 1 : 1
            longest = max(longest, run)
            previous = day
        }
        longestStreak = longest
        lastDay = completed.map { LocalDay($0.startedAt, in: timeZone) }.filter { $0.number <= today }.max()
        if let last = days.last, last == today || last == today - 1 {
            currentStreak = run
        } else {
            currentStreak = 0
        }
    }

    /// Every badge this history has earned.
    public var earnedBadges: Set<Badge> {
        var badges: Set<Badge> = []
        if completedSessions >= 1 { badges.insert(.firstSession) }
        if longestStreak >= 7 { badges.insert(.streak7) }
        if longestStreak >= 30 { badges.insert(.streak30) }
        if totalTime >= .seconds(10 * 3600) { badges.insert(.tenHours) }
        if completedSessions >= 100 { badges.insert(.hundredSessions) }
        return badges
    }

    /// Badges earned now and not before: each is stored and announced (`badge_earned`)
    /// once. In `Badge.allCases` order.
    public func newBadges(alreadyEarned: Set<Badge>) -> [Badge] {
        let earned = earnedBadges
        return Badge.allCases.filter { earned.contains($0) && !alreadyEarned.contains($0) }
    }
}

/// A milestone, earned once.
public enum Badge: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case firstSession = "first_session"
    case streak7 = "streak_7"
    case streak30 = "streak_30"
    case tenHours = "ten_hours"
    case hundredSessions = "hundred_sessions"

    public var description: String {
        switch self {
        case .firstSession: "first session"
        case .streak7: "7-day streak"
        case .streak30: "30-day streak"
        case .tenHours: "10 hours"
        case .hundredSessions: "100 sessions"
        }
    }
}
