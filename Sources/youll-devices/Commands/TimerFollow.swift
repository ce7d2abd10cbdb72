import ArgumentParser
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

    static func follow(_ client: BridgeClient, session: String?) async throws {
        let ticks = try await Ticks(client)
        defer { ticks.stop() }
        var view = FollowView(live: isLive, session: session)
        for await tick in ticks.stream {
            switch tick {
            case .second:
                view.second()
            case .interrupt:
                print("")
                guard try await askToStop(client) else {
                    print("the session goes on in the daemon; `youll-devices timer stop` ends it")
                    return
                }
            case .ended:
                view.emit(view.throttle.flush())
                if view.live { print("") }
                throw CLIError("lost the connection to the broker; the session goes on in the daemon")
            case .message(let message):
                if try view.show(message) { return }
            }
        }
    }

    /// `status` as it stands `seconds` after it was received: a running session's elapsed
    /// time moves on, its remaining time and next bell count down (never below zero).
    static func extrapolated(_ status: JSONValue, by seconds: Double) -> JSONValue {
        guard case .object(var fields) = status, fields["state"]?.stringValue == "running" else { return status }
        if let value = TimerLine.seconds(fields["elapsed_seconds"]) {
            fields["elapsed_seconds"] = .double(value + seconds)
        }
        for key in ["remaining_seconds", "next_bell_seconds"] {
            if let value = TimerLine.seconds(fields[key]) { fields[key] = .double(max(0, value - seconds)) }
        }
        return .object(fields)
    }

    /// What a bridge event means to the view of `session` (nil: any session).
    enum Event: Equatable {
        /// A cue fired: the line to print above the progress line.
        case cue(String)
        /// The session ended: the last line.
        case ended(String)
        /// A badge was earned (announced just before the end of the session that earned it).
        case badge(String)
    }

    /// The cue or end that `json` (a bridge event) reports for `session`; nil for anything else.
    static func event(_ json: JSONValue, of session: String?) -> Event? {
        guard let object = json.objectValue, let data = object["data"]?.objectValue else { return nil }
        if object["type"]?.stringValue == "badge_earned" {
            let name = data["name"]?.stringValue ?? data["badge"]?.stringValue ?? "a badge"
            return .badge("badge earned: \(BridgeText.printable(name, maximumLength: 80))")
        }
        guard session == nil || data["id"]?.stringValue == session else { return nil }
        switch object["type"]?.stringValue {
        case "session_cue":
            return .cue(TimerLine.cue(data))
        case "session_ended":
            let elapsed = TimerLine.clock(TimerLine.seconds(data["elapsed_seconds"]) ?? 0)
            return .ended("session \(TimerLine.text(data["state"]) ?? "ended") after \(elapsed)")
        default:
            return nil
        }
    }

    /// After Ctrl-C: asks on the terminal whether to stop the session and stops it if so.
    /// False (keep the session, stop following) when the answer is no or there is no terminal.
    private static func askToStop(_ client: BridgeClient) async throws -> Bool {
        guard Terminal.standardInputIsTerminal else { return false }
        print("Stop the session? [y/N] ", terminator: "")
        flushStandardOutput()
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { return false }
        _ = try await client.request("session/stop", timeout: .seconds(10))
        return true
    }
}

/// What wakes the follow view: a message on the session topics, a second gone by, Ctrl-C,
/// or the end of the subscription. SIGINT is caught while it exists; `stop()` restores it.
private struct Ticks {
    enum Tick: Sendable {
        case message(BridgeMessage)
        case second
        case interrupt
        case ended
    }

    let stream: AsyncStream<Tick>
    private let pump: Task<Void, Never>
    private let timer: Task<Void, any Error>
    private let interrupt: any DispatchSourceSignal

    init(_ client: BridgeClient) async throws {
        let base = client.baseTopic
        let messages = try await client.subscribe([
            "\(base)/bridge/session", "\(base)/bridge/event", "\(base)/bridge/state",
        ])
        // Bounded like the client's own buffer: while the Ctrl-C question waits for an answer,
        // a flood of messages drops the oldest instead of growing. The end and Ctrl-C are
        // yielded after what they follow, so only that many newer ticks could push them out.
        let (stream, sink) = AsyncStream.makeStream(
            of: Tick.self, bufferingPolicy: .bufferingNewest(BridgeClient.listenerBuffer))
        self.stream = stream
        pump = Task {
            for await message in messages { sink.yield(.message(message)) }
            sink.yield(.ended)
        }
        timer = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                sink.yield(.second)
            }
        }
        signal(SIGINT, SIG_IGN)
        interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        interrupt.setEventHandler { sink.yield(.interrupt) }
        interrupt.resume()
    }

    func stop() {
        pump.cancel()
        timer.cancel()
        interrupt.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

extension Duration {
    var sessionSecondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
