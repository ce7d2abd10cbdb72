/// Why a session could not be configured, planned or driven, in terms a person can act
/// on. Every case names the field at fault (`stages[1].interval`, `light.end.brightness`)
/// so a CLI flag, a bridge request or a preset file can point at it.
public enum SessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A duration that must be positive is zero or negative.
    case nonPositiveDuration(field: String, value: Duration)
    /// Warm-up plus stages add up to more than the limit.
    case tooLong(total: Duration, limit: Duration)
    /// An interval bell is spaced further apart than its stage lasts.
    case intervalLongerThanStage(field: String, interval: Duration, stage: Duration)
    /// More interval bells than a session may ring (`SessionPlanner.maximumBells`).
    case tooManyBells(count: Int, limit: Int)
    /// A staged session with no stage.
    case noStages
    /// A stage or preset name that is empty, too long or has characters the CLI and
    /// deep links cannot carry.
    case invalidName(field: String, name: String, reason: String)
    /// "until HH:MM" text that is not a time of day.
    case invalidTimeOfDay(String)
    /// "until HH:MM" leaves no time after the warm-up.
    case untilTooSoon(until: String, warmUp: Duration)
    /// "until HH:MM" passed earlier today and tomorrow's is more than 12 hours away (`UntilRule`).
    case untilPassed(until: String, now: String)
    /// "until tomorrow HH:MM" is more than 24 hours away.
    case untilBeyondADay(until: String, now: String)
    /// A preset value outside what the device accepts.
    case valueOutOfRange(field: String, value: Int, range: ClosedRange<Int>)
    /// A preset field another setting depends on is missing or does not fit the role.
    case unsupported(field: String, reason: String)
    /// The runner was asked to do something its state does not allow (pause a stopped
    /// session, start twice).
    case invalidTransition(action: String, state: SessionState)

    public var description: String {
        switch self {
        case .nonPositiveDuration(let field, let value):
            "\(field) must be longer than zero (got \(value.sessionText))"
        case .tooLong(let total, let limit):
            "the session lasts \(total.sessionText), more than the \(limit.sessionText) limit; shorten the warm-up or stages"
        case .intervalLongerThanStage(let field, let interval, let stage):
            "\(field): a bell every \(interval.sessionText) never rings in a stage of \(stage.sessionText); use a shorter interval"
        case .tooManyBells(let count, let limit):
            "the interval bells would ring \(count) times, more than the \(limit) a session may ring (one a minute for a day); use a longer interval"
        case .noStages:
            "stages: a session needs at least one stage (or use open-ended or until HH:MM)"
        case .invalidName(let field, let name, let reason):
            "\(field): \"\(name)\" is not a valid name (\(reason))"
        case .invalidTimeOfDay(let text):
            "until: \"\(text)\" is not a time of day; write HH:MM, 00:00 to 23:59"
        case .untilTooSoon(let until, let warmUp):
            "until: \(until) leaves no time after the \(warmUp.sessionText) warm-up"
        case .untilPassed(let until, let now):
            "until: \(until) is in the past (it is \(now) now); for tomorrow's, ask until \"tomorrow \(until)\""
        case .untilBeyondADay(let until, let now):
            "until: tomorrow \(until) is more than 24 hours away (it is \(now) now); a session lasts at most 24 h"
        case .valueOutOfRange(let field, let value, let range):
            "\(field): \(value) is outside \(range.lowerBound)...\(range.upperBound)"
        case .unsupported(let field, let reason):
            "\(field): \(reason)"
        case .invalidTransition(let action, let state):
            "cannot \(action) a session that is \(state.rawValue)"
        }
    }
}

extension Duration {
    /// "10 min", "1 h 30 min", "90 s", "2.5 s": how a duration reads in messages.
    var sessionText: String {
        let (seconds, attoseconds) = components
        if attoseconds != 0 || seconds < 0 {
            let value = Double(seconds) + Double(attoseconds) / 1e18
            return "\(value) s"
        }
        let hours = seconds / 3600
        let minutes = (seconds % 3600) / 60
        let rest = seconds % 60
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        if rest > 0 || parts.isEmpty { parts.append("\(rest) s") }
        return parts.joined(separator: " ")
    }
}
