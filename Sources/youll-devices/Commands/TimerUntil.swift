import Foundation
import SessionEngine

/// `timer start --until HH:MM` or `--until 'tomorrow HH:MM'`, checked against the clock
/// before anything is sent. A bare time that already passed today is a mistake when it is
/// more than 12 hours ahead by tomorrow (07:00 typed at 08:00 would be a 23-hour session):
/// refused with the fix. One that passed less than 12 hours ago stands for tonight after
/// midnight (00:30 typed at 23:30), as an alarm clock reads it.
enum TimerUntil {
    /// Past this, a bare HH:MM that already passed today is refused.
    static let nightWindow: TimeInterval = 12 * 3600

    /// The `until` value (`HH:MM`) the daemon resolves to its next occurrence.
    static func resolve(_ text: String, now: Date, calendar: Calendar) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let words = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        let isTomorrow = words.count == 2 && words[0].lowercased() == "tomorrow"
        let timeText = isTomorrow ? String(words[1]) : trimmed
        let time: TimeOfDay
        do {
            time = try TimeOfDay(parsing: timeText)
        } catch {
            throw CLIError.usage("--until \"\(text)\": expected HH:MM or 'tomorrow HH:MM' (24-hour clock)")
        }
        let today = calendar.startOfDay(for: now)
        guard
            let todayAt = calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: today),
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: today),
            let tomorrowAt = calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: tomorrow)
        else { throw CLIError.usage("--until \"\(text)\": this time does not exist today or tomorrow here") }
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        let clock = TimeOfDay(hour: parts.hour ?? 0, minute: parts.minute ?? 0)?.description ?? "?"
        if isTomorrow {
            guard todayAt <= now else {
                throw CLIError.usage(
                    "--until 'tomorrow \(time)' is more than 24 hours away (it is \(clock) now); "
                        + "a session lasts at most 24 h: use --until \(time) for today")
            }
            return time.description
        }
        if todayAt > now || tomorrowAt.timeIntervalSince(now) <= nightWindow { return time.description }
        throw CLIError.usage(
            "--until \(time) is in the past (it is \(clock) now); did you mean tomorrow? "
                + "use --until 'tomorrow \(time)' or --minutes N")
    }
}
