import Foundation
import Gateway
import TuyaCore

/// The timer's progress as one line: `sit  02:10 / 10:00 [#####-------] 07:50 left · next bell 00:50`.
/// Pure, from the status JSON the bridge publishes (`youll/bridge/session`).
enum TimerLine {
    static let barWidth = 20

    static func render(_ status: JSONValue) -> String {
        guard let object = status.objectValue else { return "no session" }
        let state = text(object["state"]) ?? "?"
        guard state != "idle" else { return "no session is running" }
        let phase: String =
            switch text(object["phase"]) {
            case "warm_up": "warm-up"
            case "stage": text(object["stage"]) ?? "stage"
            case let other?: other
            case nil: "?"
            }
        let elapsed = seconds(object["elapsed_seconds"]) ?? 0
        var parts = [state == "paused" ? "\(phase) (paused)" : phase]
        if object["phase"]?.stringValue == "ending" {
            // The meditation is over; the end effect (a sunrise, a fade) still plays.
            parts.append("\(clock(elapsed))  the meditation is over; the end effect is playing")
            return parts.joined(separator: "  ")
        }
        if let remaining = seconds(object["remaining_seconds"]) {
            let total = elapsed + remaining
            let share = total > 0 ? min(1, max(0, elapsed / total)) : 1
            let filled = Int((share * Double(barWidth)).rounded(.down))
            parts.append(
                "\(clock(elapsed)) / \(clock(total)) [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: barWidth - filled))] \(clock(remaining)) left"
            )
        } else {
            parts.append("\(clock(elapsed)) (open-ended)")
        }
        if let bell = seconds(object["next_bell_seconds"]) { parts.append("next bell \(clock(bell))") }
        return parts.joined(separator: "  ")
    }

    /// What a plain (piped) follow view prints a new line for: the state, phase and stage,
    /// not the ticking clock.
    static func headline(_ status: JSONValue) -> [String?] {
        let object = status.objectValue
        return ["state", "phase", "stage"].map { object?[$0]?.stringValue }
    }

    /// A string from the bridge's JSON as it may be printed: anyone on the broker can forge
    /// it, so control characters (terminal escapes) are shown as `\u{…}` and it is cut at
    /// 80 characters.
    static func text(_ value: JSONValue?) -> String? {
        value?.stringValue.map { BridgeText.printable($0, maximumLength: 80) }
    }

    /// `mm:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let total = Int(min(max(0, seconds.isFinite ? seconds : 0), 1e9).rounded(.down))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let (hours, minutes, rest) = (total / 3600, (total % 3600) / 60, total % 60)
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(two(minutes)):\(two(rest))"
    }

    /// Seconds from the bridge's JSON, which any client of the broker can forge: nil unless
    /// a number within ±10⁹ s (about 31 years), so nothing below can overflow.
    static func seconds(_ value: JSONValue?) -> Double? {
        let number: Double? =
            switch value {
            case .integer(let int)?: Double(int)
            case .double(let double)?: double
            default: nil
            }
        guard let number, abs(number) <= 1e9 else { return nil }
        return number
    }

    /// A `session_cue` event as one line: `00:04.0  bell 1 of stage 1  lamp  confirmed (+3 ms)`.
    static func cue(_ data: [String: JSONValue]) -> String {
        let at = max(0, seconds(data["actual_seconds"]) ?? 0)
        let tenths = Int((at * 10).rounded()) % 10
        var line = "\(clock(at)).\(tenths)  \(text(data["description"]) ?? "cue")"
        if let device = text(data["device"]) { line += "  \(device)" }
        line += "  \(text(data["outcome"]) ?? "")"
        if let late = data["lateness_ms"]?.int64Value { line += " (+\(late) ms)" }
        return line
    }
}
