import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Gateway
import TuyaCore

/// The live progress view of `timer start` and `timer status --follow` on a terminal: one
/// line redrawn in place (phase, elapsed and remaining with a bar, next bell), cues
/// printed above it as they fire, until the session ends. Between status messages the
/// clock is extrapolated once a second, for the display only. Ctrl-C asks whether to stop
/// the session (without a terminal to answer on, it leaves the session running).
enum TimerFollow {
    /// Only a terminal gets the redrawn line; a pipe gets plain lines.
    static var isLive: Bool { isatty(STDOUT_FILENO) == 1 }

    private enum Tick: Sendable {
        case message(BridgeMessage)
        case second
        case interrupt
        case ended
    }

    static func follow(_ client: BridgeClient, session: String?) async throws {
        let base = client.baseTopic
        let stream = try await client.subscribe(["\(base)/bridge/session", "\(base)/bridge/event"])
        let (ticks, sink) = AsyncStream.makeStream(of: Tick.self)
        let pump = Task {
            for await message in stream { sink.yield(.message(message)) }
            sink.yield(.ended)
        }
        let timer = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                sink.yield(.second)
            }
        }
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        interrupt.setEventHandler { sink.yield(.interrupt) }
        interrupt.resume()
        defer {
            pump.cancel()
            timer.cancel()
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        var status: JSONValue = SessionStatusPayload.idle.json
        var receivedAt = ContinuousClock.now
        func draw() {
            var shown = status
            if case .object(var fields) = status, fields["state"]?.stringValue == "running" {
                let since = (ContinuousClock.now - receivedAt).sessionSecondsValue
                for key in ["elapsed_seconds"] {
                    if let value = TimerLine.seconds(fields[key]) { fields[key] = .double(value + since) }
                }
                for key in ["remaining_seconds", "next_bell_seconds"] {
                    if let value = TimerLine.seconds(fields[key]) { fields[key] = .double(max(0, value - since)) }
                }
                shown = .object(fields)
            }
            print("\r\u{1B}[K" + TimerLine.render(shown), terminator: "")
            flushStandardOutput()
        }
        for await tick in ticks {
            switch tick {
            case .second:
                draw()
            case .interrupt:
                print("")
                guard Terminal.standardInputIsTerminal else {
                    print("the session goes on in the daemon; `youll-devices timer stop` ends it")
                    return
                }
                print("Stop the session? [y/N] ", terminator: "")
                flushStandardOutput()
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    print("the session goes on in the daemon; `youll-devices timer stop` ends it")
                    return
                }
                _ = try await client.request("session/stop", timeout: .seconds(10))
            case .ended:
                print("")
                throw CLIError("lost the connection to the broker; the session goes on in the daemon")
            case .message(let message):
                guard let json = message.json else { continue }
                if message.topic.hasSuffix("/bridge/session") {
                    status = json
                    receivedAt = .now
                    draw()
                    continue
                }
                guard let object = json.objectValue, let data = object["data"]?.objectValue,
                    session == nil || data["id"]?.stringValue == session
                else { continue }
                switch object["type"]?.stringValue {
                case "session_cue":
                    print("\r\u{1B}[K" + TimerLine.cue(data))
                    draw()
                case "session_ended":
                    let elapsed = TimerLine.clock(TimerLine.seconds(data["elapsed_seconds"]) ?? 0)
                    print("\r\u{1B}[Ksession \(data["state"]?.stringValue ?? "ended") after \(elapsed)")
                    return
                default:
                    continue
                }
            }
        }
    }
}

extension Duration {
    var sessionSecondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
