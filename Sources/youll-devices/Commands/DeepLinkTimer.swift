import Foundation
import Gateway
import TuyaCore

/// What `open` does with the timer's links: `youll://timer?preset=…&minutes=…` starts the
/// session (asking on a terminal, `--yes` for scripts), `youll://timer/sessions/<id>`
/// shows that session as `timer history` does.
enum DeepLinkTimer {
    static func start(
        _ destination: [String: JSONValue], client: BridgeClient, timeout: Duration,
        consent: DeepLinkOpener.Consent
    ) async throws -> DeepLinkOpener.Outcome {
        let preset = destination["preset"]?.stringValue ?? "calm"
        let minutes = destination["minutes"]?.int64Value ?? 0
        let what = "a \(minutes)-minute \(BridgeText.printable(preset, maximumLength: 64)) session"
        switch consent {
        case .given: break
        case .ask: try confirm("Start \(what) now? [y/N] ")
        case .missing:
            throw CLIError("this link starts \(what); add --yes to start it without a terminal to confirm on")
        }
        let status = try await client.request(
            "session/start", ["preset": .string(preset), "minutes": .integer(minutes)], timeout: timeout)
        var lines = ["started session \(TimerLine.text(status["id"]) ?? "?"): \(TimerLine.render(status))"]
        if case .array(let following)? = status["devices"], following.isEmpty {
            lines.append(TimerStartCommand.noDevicesWarning)
        }
        return .init(json: status, lines: lines)
    }

    /// Looks the session up in the history (the newest 10 000 sessions).
    static func show(_ destination: [String: JSONValue], client: BridgeClient, timeout: Duration) async throws
        -> DeepLinkOpener.Outcome
    {
        let id = destination["session"]?.stringValue ?? ""
        let report = try await client.request("session/history", ["limit": .integer(10_000)], timeout: timeout)
        let sessions: [JSONValue] = if case .array(let list)? = report["sessions"] { list } else { [] }
        guard let session = sessions.first(where: { $0["id"]?.stringValue?.lowercased() == id.lowercased() }),
            let fields = session.objectValue
        else {
            let status = try await client.request("session/status", timeout: timeout)
            if status["id"]?.stringValue?.lowercased() == id.lowercased() {
                return .init(
                    json: status,
                    lines: ["session \(BridgeText.printable(id)) is under way: \(TimerLine.render(status))"])
            }
            throw CLIError(
                "no session \(BridgeText.printable(id, maximumLength: 64)) in the history; `youll-devices timer history` lists them"
            )
        }
        return .init(json: session, lines: TimerHistoryCommand.table([fields]).render(on: .current))
    }
}
