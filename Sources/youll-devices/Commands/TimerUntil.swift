import Foundation
import SessionEngine

/// `timer start --until HH:MM` or `--until 'tomorrow HH:MM'`, checked against the clock
/// before anything is sent. A bare time that already passed today is a mistake when it is
/// more than 12 hours ahead by tomorrow (07:00 typed at 08:00 would be a 23-hour session):
/// refused with the fix. One that passed less than 12 hours ago stands for tonight after
/// midnight (00:30 typed at 23:30), as an alarm clock reads it.
enum TimerUntil {
    /// The `until` value the daemon resolves: `HH:MM`, or `tomorrow HH:MM` (`UntilRule`).
    static func resolve(_ text: String, now: Date, calendar: Calendar) throws -> String {
        let time: TimeOfDay
        let isTomorrow: Bool
        do {
            (time, isTomorrow) = try UntilRule.parse(text)
        } catch {
            throw CLIError.usage("--until \"\(text)\": expected HH:MM or 'tomorrow HH:MM' (24-hour clock)")
        }
        do {
            try UntilRule.check(time, tomorrow: isTomorrow, now: now, calendar: calendar)
        } catch .untilBeyondADay(_, let clock) {
            throw CLIError.usage(
                "--until 'tomorrow \(time)' is more than 24 hours away (it is \(clock) now); "
                    + "a session lasts at most 24 h: use --until \(time) for today")
        } catch .untilPassed(_, let clock) {
            throw CLIError.usage(
                "--until \(time) is in the past (it is \(clock) now); did you mean tomorrow? "
                    + "use --until 'tomorrow \(time)' or --minutes N")
        } catch {
            throw CLIError.usage("--until \"\(text)\": this time does not exist today or tomorrow here")
        }
        // The daemon checks again: "tomorrow" tells it which occurrence is meant.
        return isTomorrow ? "tomorrow \(time)" : time.description
    }
}
