import Foundation

/// Which occurrence of a wall-clock time "until HH:MM" may mean, as an alarm clock reads it:
/// later today, or after midnight when that is within 12 hours (00:30 asked at 23:30). A time
/// that passed earlier today is a mistake when tomorrow's is more than 12 hours away (07:00
/// asked at 07:01 would be a 24-hour session): refused, unless the request says "tomorrow".
/// "tomorrow HH:MM" must be within 24 hours. The CLI checks the same before it sends; the
/// daemon checks again, for other clients and for a request that crossed the time on its way.
public enum UntilRule {
    /// Past this, a bare time that already passed today is refused.
    public static let nightWindow: TimeInterval = 12 * 3600

    /// `HH:MM` or `tomorrow HH:MM` (any case, any spaces between), as the CLI and the bridge
    /// take it.
    public static func parse(_ text: String) throws(SessionError) -> (time: TimeOfDay, tomorrow: Bool) {
        let words = text.split(whereSeparator: \.isWhitespace)
        let tomorrow = words.count == 2 && words[0].lowercased() == "tomorrow"
        guard words.count == 1 || tomorrow else { throw .invalidTimeOfDay(text) }
        return (try TimeOfDay(parsing: String(words[words.count - 1])), tomorrow)
    }

    /// Throws when `time` (`tomorrow`: tomorrow's) is not a sensible end for a session
    /// starting `now`, or does not exist today or tomorrow (`invalidTimeOfDay`);
    /// `calendar`'s time zone decides what the time means.
    public static func check(_ time: TimeOfDay, tomorrow: Bool, now: Date, calendar: Calendar) throws(SessionError) {
        let today = calendar.startOfDay(for: now)
        guard let todayAt = calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: today),
            let nextDay = calendar.date(byAdding: .day, value: 1, to: today),
            let tomorrowAt = calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: nextDay)
        else { throw .invalidTimeOfDay(time.description) }
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        let clock = TimeOfDay(hour: parts.hour ?? 0, minute: parts.minute ?? 0)?.description ?? "?"
        if tomorrow {
            guard todayAt <= now else { throw .untilBeyondADay(until: time.description, now: clock) }
            return
        }
        guard todayAt > now || tomorrowAt.timeIntervalSince(now) <= nightWindow else {
            throw .untilPassed(until: time.description, now: clock)
        }
    }
}
