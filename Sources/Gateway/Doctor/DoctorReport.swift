import Foundation

/// How `doctor` prints its checks: aligned columns for people, a JSON array for scripts.
public enum DoctorReport {
    /// ```
    /// ok    broker    mqtt://127.0.0.1:1883 reachable, authorised
    /// warn  daemon    the daemon is not running (nothing retained on youll/bridge/state)
    ///                 fix: start it with `systemctl start youll-devices` or `youll-devices serve`
    /// ```
    /// With `colour`, the status word is green, yellow or red (ANSI); the columns stay aligned
    /// because only the word itself is wrapped. Details and fixes quote what the network said
    /// (broker errors, device announcements), so control characters in them are shown escaped.
    public static func text(_ checks: [DoctorCheck], colour: Bool) -> String {
        let statusWidth = DoctorCheck.Status.allCases.map(\.rawValue.count).max()! + 2
        let nameWidth = (checks.map(\.name.count).max() ?? 0) + 2
        let indent = String(repeating: " ", count: statusWidth + nameWidth)
        var lines: [String] = []
        for check in checks {
            let status = check.status.rawValue
            let padding = String(repeating: " ", count: statusWidth - status.count)
            let name = check.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            lines.append((colour ? painted(check.status) : status) + padding + name + Self.printable(check.detail))
            if let fix = check.fix, check.status != .ok { lines.append(indent + "fix: " + Self.printable(fix)) }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `[{"check": …, "status": "ok"|"warn"|"fail", "detail": …, "fix": … or null}]` on one
    /// line, compact like every other command's `--json` (issue 14 item 18).
    public static func json(_ checks: [DoctorCheck]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(checks.map(Line.init))) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func printable(_ text: String) -> String {
        BridgeText.printable(text, maximumLength: .max)
    }

    /// The one line for stderr when something failed; nil when nothing did. Under `--json`
    /// (`json`) it is the `{"error": …}` object every command writes there.
    public static func failureSummary(_ checks: [DoctorCheck], json: Bool = false) -> String? {
        let failed = checks.filter { $0.status == .fail }.map(\.name)
        guard !failed.isEmpty else { return nil }
        var names: [String] = []
        for name in failed where !names.contains(name) { names.append(name) }
        let count = failed.count == 1 ? "1 check failed" : "\(failed.count) checks failed"
        let summary = "doctor: \(count) (\(names.joined(separator: ", ")))"
        guard json else { return summary + "; see the fix lines above" }
        return BridgeJSON.text(.object(["error": .string(summary + "; see each failed check's fix")]))
    }

    private static func painted(_ status: DoctorCheck.Status) -> String {
        let code =
            switch status {
            case .ok: "32"
            case .warn: "33"
            case .fail: "31"
            }
        return "\u{1B}[\(code)m\(status.rawValue)\u{1B}[0m"
    }

    private struct Line: Encodable {
        var check: String
        var status: String
        var detail: String
        var fix: String?

        init(_ check: DoctorCheck) {
            self.check = check.name
            status = check.status.rawValue
            detail = check.detail
            fix = check.fix
        }

        enum CodingKeys: CodingKey { case check, status, detail, fix }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(check, forKey: .check)
            try container.encode(status, forKey: .status)
            try container.encode(detail, forKey: .detail)
            try container.encode(fix, forKey: .fix)  // null, not absent: every object has the same keys
        }
    }
}
