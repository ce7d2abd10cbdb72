import ArgumentParser
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Gateway
import Synchronization
import TuyaCore

/// The live progress view of `timer start` and `timer status --follow` on a terminal: one
/// line redrawn in place (phase, elapsed and remaining with a bar, next bell), cues
/// printed above it as they fire, until the session ends. Between status messages the
/// clock is extrapolated once a second, for the display only. Ctrl-C asks whether to stop
/// the session (without a terminal to answer on, it leaves the session running).
enum TimerFollow {
    /// Only a terminal gets the redrawn line; a pipe gets plain lines.
    static var isLive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// `from`: the status the command read first; under `--json` it is the stream's first line
    /// (and not printed again when the retained one repeats it).
    static func follow(
        _ client: BridgeClient, session: String?, json: Bool = false, from status: JSONValue? = nil
    ) async throws {
        let ticks = try await Ticks(client, session: session)
        defer { ticks.stop() }
        var view = FollowView(live: isLive, session: session, json: json)
        if json, let status { _ = view.showJSON(status, topic: "/bridge/session") }
        var expected = 0
        for await tick in ticks.stream {
            if ticks.flags.interrupts.exchange(0, ordering: .relaxed) > 0 {
                // Under --json stdout is data: Ctrl-C stops following, and the session goes on.
                if json { return }
                print("")
                guard try await askToStop(client) else {
                    print("the session goes on in the daemon; `youll-devices timer stop` ends it")
                    return
                }
            }
            switch tick {
            case .second:
                view.second()
            case .message(let message, let number):
                view.noteDropped(number - expected)
                expected = number + 1
                if try view.show(message) { return }
            case .flagged:
                if let last = ticks.flags.last.withLock({ $0 }) {
                    // The session's end (or the daemon's): after every message before it.
                    view.noteDropped(last.number - expected)
                    expected = last.number + 1
                    if try view.show(last.message) { return }
                }
                guard ticks.flags.ended.load(ordering: .acquiring) else { continue }
                view.noteDropped(ticks.flags.pumped.load(ordering: .relaxed) - expected)
                view.emit(view.throttle.flush())
                if view.live { print("") }
                flushStandardOutput()
                throw CLIError("lost the connection to the broker; the session goes on in the daemon")
            }
        }
    }

    /// The session's end or the daemon going offline: what `FollowView.show` ends on, read as
    /// it reads it (JSON first), so a message it would pass over (a bare `offline` from anyone
    /// on the broker) does not stop the pump with a view that never ends.
    static func endsTheView(_ message: BridgeMessage, session: String?) -> Bool {
        guard let json = message.json else { return false }
        if message.topic.hasSuffix("/bridge/state") { return message.availability == "offline" }
        guard message.topic.hasSuffix("/bridge/event"), case .ended = event(json, of: session) else { return false }
        return true
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
///
/// At most `BridgeClient.listenerBuffer` ticks wait while the view is busy (the Ctrl-C
/// question waits for an answer): a flood drops the oldest, and the view says how many. What
/// must not be dropped is kept beside the stream in `flags`, with a `.flagged` tick to look:
/// Ctrl-C, the end of the subscription, and the message that ends the view (the session's
/// end, the daemon going offline), after which nothing more is pumped.
private struct Ticks {
    enum Tick: Sendable {
        /// Numbered from 0 in the order the pump took them: a gap is what was dropped.
        case message(BridgeMessage, number: Int)
        case second
        case flagged
    }

    final class Flags: Sendable {
        /// Ctrl-C presses not yet answered.
        let interrupts = Atomic<Int>(0)
        /// The subscription ended (`pumped` is final).
        let ended = Atomic<Bool>(false)
        let pumped = Atomic<Int>(0)
        /// The message that ends the view, with its number.
        let last = Mutex<(message: BridgeMessage, number: Int)?>(nil)
    }

    let stream: AsyncStream<Tick>
    let flags = Flags()
    private let pump: Task<Void, Never>
    private let timer: Task<Void, any Error>
    private let interrupt: any DispatchSourceSignal

    init(_ client: BridgeClient, session: String?) async throws {
        let base = client.baseTopic
        let messages = try await client.subscribe([
            "\(base)/bridge/session", "\(base)/bridge/event", "\(base)/bridge/state",
        ])
        let (stream, sink) = AsyncStream.makeStream(
            of: Tick.self, bufferingPolicy: .bufferingNewest(BridgeClient.listenerBuffer))
        self.stream = stream
        let flags = flags
        pump = Task {
            var number = 0
            for await message in messages {
                if TimerFollow.endsTheView(message, session: session) {
                    flags.last.withLock { $0 = (message, number) }
                    sink.yield(.flagged)
                    return
                }
                sink.yield(.message(message, number: number))
                number += 1
            }
            flags.pumped.store(number, ordering: .relaxed)
            flags.ended.store(true, ordering: .releasing)
            sink.yield(.flagged)
        }
        timer = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                sink.yield(.second)
            }
        }
        signal(SIGINT, SIG_IGN)
        interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        interrupt.setEventHandler {
            flags.interrupts.add(1, ordering: .relaxed)
            sink.yield(.flagged)
        }
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
