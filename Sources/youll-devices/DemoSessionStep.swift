import Foundation
import Gateway
import TuyaCore

/// The demo's timer step: a short `focus` session started through the bridge API
/// (`session/start`): a 2 s warm-up, one 6 s stage with a bell every 3 s, the room
/// restored at the end. Its cues are printed by the demo's event printer as they fire.
enum DemoSessionStep {
    static let request: [String: JSONValue] = [
        "preset": .string("focus"), "warmup_seconds": .integer(2),
        "stages": .array([.object(["name": .string("sit"), "minutes": .double(0.1), "interval": .double(0.05)])]),
    ]

    /// Starts the session, waits for it to end, and returns how many cues fired.
    static func run(_ client: BridgeClient, baseTopic: String) async throws -> (state: String, cues: Int) {
        let events = try await client.subscribe(["\(baseTopic)/bridge/event"])
        let status = try await client.request("session/start", request, timeout: .seconds(10))
        print("  session/start → \(TimerLine.render(status))")
        var cues = 0
        let deadline = ContinuousClock.now + .seconds(60)
        for await message in events {
            guard let object = message.json?.objectValue else { continue }
            switch object["type"]?.stringValue {
            case "session_cue": cues += 1
            case "session_ended":
                let history = try await client.request("session/history", ["limit": .integer(1)], timeout: .seconds(10))
                let badges = history.objectValue?["badges"].map(BridgeJSON.text) ?? "[]"
                print(
                    "  session/history: \(history.objectValue?["completed_sessions"]?.int64Value ?? 0) completed, badges \(badges)"
                )
                return (object["data"]?.objectValue?["state"]?.stringValue ?? "?", cues)
            default: break
            }
            if ContinuousClock.now > deadline { break }
        }
        throw CLIError("the demo session did not end within a minute")
    }

    /// How the demo's event printer shows session events; nil for other events.
    static func describe(type: String, data: [String: JSONValue]) -> String? {
        switch type {
        case "session_started":
            return
                "session_started \(data["preset"]?.stringValue ?? "?") with \(data["devices"].map(BridgeJSON.text) ?? "[]")"
        case "session_cue":
            return "session_cue \(TimerLine.cue(data))"
        case "session_ended":
            let elapsed = TimerLine.clock(TimerLine.seconds(data["elapsed_seconds"]) ?? 0)
            return "session_ended \(data["state"]?.stringValue ?? "?") after \(elapsed)"
        case "badge_earned":
            return "badge_earned \(data["name"]?.stringValue ?? "?")"
        default:
            return nil
        }
    }
}
