import Foundation
import SessionEngine
import TuyaCore

/// `session/history`: totals and streaks over every finished session, the badges earned
/// (in their fixed order) and the latest sessions.
struct SessionHistoryPayload: Codable, Hashable {
    struct Session: Codable, Hashable {
        var id: String
        var preset: String
        var state: SessionState
        /// ISO 8601, UTC.
        var startedAt: String
        /// The same instant in the timer's time zone, with its offset: the day streaks count
        /// it for (`2026-11-29T00:30:00+01:00`).
        var startedLocal: String
        @NullWhenAbsent var endedAt: String?
        var elapsedSeconds: SessionSeconds
        /// Device ids.
        var devices: [String]

        enum CodingKeys: String, CodingKey {
            case id, preset, state, devices
            case startedAt = "started_at"
            case startedLocal = "started_local"
            case endedAt = "ended_at"
            case elapsedSeconds = "elapsed_seconds"
        }

        /// `utc` and `local` format the times (made once for a whole history).
        init(_ record: SessionRecord, utc: ISO8601DateFormatter, local: ISO8601DateFormatter) {
            id = record.id.rawValue
            preset = record.presetName
            state = record.state
            startedAt = utc.string(from: record.startedAt)
            startedLocal = local.string(from: record.startedAt)
            endedAt = record.endedAt.map(utc.string)
            elapsedSeconds = SessionSeconds(record.elapsed)
            devices = record.devices.map(\.rawValue)
        }
    }

    var completedSessions: Int
    var totalSeconds: SessionSeconds
    var currentStreakDays: Int
    var longestStreakDays: Int
    var badges: [Badge]
    var sessions: [Session]

    enum CodingKeys: String, CodingKey {
        case badges, sessions
        case completedSessions = "completed_sessions"
        case totalSeconds = "total_seconds"
        case currentStreakDays = "current_streak_days"
        case longestStreakDays = "longest_streak_days"
    }

    /// `timeZone`: the timer's, which decides the days streaks count.
    init(_ report: SessionHistoryReport, timeZone: TimeZone) {
        completedSessions = report.summary.completedSessions
        totalSeconds = SessionSeconds(report.summary.totalTime)
        currentStreakDays = report.summary.currentStreak
        longestStreakDays = report.summary.longestStreak
        badges = Badge.allCases.filter(report.badges.contains)
        let (utc, local) = (ISO8601DateFormatter(), ISO8601DateFormatter())
        local.timeZone = timeZone
        sessions = report.sessions.map { Session($0, utc: utc, local: local) }
    }
}
