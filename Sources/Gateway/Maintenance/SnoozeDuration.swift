import Foundation

/// A snooze length as people write it: `2d`, `3h`, `45m`, `90s`, or plain seconds (`7200`).
/// Parsed the same way for the bridge's `maintenance/snooze` and the CLI's `--for`.
public enum SnoozeDuration {
    /// The longest snooze written in text, before the scheduler's own policy applies.
    public static let maximumSeconds = 365 * 86_400

    /// Whole seconds, or nil with the reason.
    public static func seconds(_ text: String) -> Result<Int, SnoozeDurationError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix(while: { $0.isASCII && $0.isNumber })
        let unit = trimmed.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 9, let amount = Int(digits) else {
            return .failure(SnoozeDurationError(text: text))
        }
        let factor: Int
        switch unit {
        case "", "s": factor = 1
        case "m": factor = 60
        case "h": factor = 3600
        case "d": factor = 86_400
        case "w": factor = 7 * 86_400
        default: return .failure(SnoozeDurationError(text: text))
        }
        let (seconds, overflow) = amount.multipliedReportingOverflow(by: factor)
        guard !overflow, seconds > 0, seconds <= maximumSeconds else {
            return .failure(SnoozeDurationError(text: text))
        }
        return .success(seconds)
    }
}

/// A snooze length that could not be read; the message shows the accepted forms.
public struct SnoozeDurationError: Error, Hashable, CustomStringConvertible {
    public var text: String

    public var description: String {
        "'\(text.prefix(20))' is not a snooze length; write 2d, 3h, 45m, 90s or seconds (more than 0, at most 365 days)"
    }
}
