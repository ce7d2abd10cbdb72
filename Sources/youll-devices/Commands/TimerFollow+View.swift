import ArgumentParser
import Foundation
import Gateway
import TuyaCore

extension TimerFollow {
    /// What the progress view shows and how: the latest status (extrapolated between
    /// messages), the throttled cue lines, and whether a terminal redraws one line in place.
    /// Under `--json` it is JSON Lines instead: each status and each event of the session as
    /// the bridge published it, nothing drawn, and the daemon going away an error.
    struct FollowView {
        let live: Bool
        /// `--json`: JSON Lines.
        let asJSON: Bool
        /// The session followed (nil: any).
        let session: String?
        var status: JSONValue = SessionStatusPayload.idle.json
        var receivedAt = ContinuousClock.now
        var throttle = CueThrottle()
        let started = ContinuousClock.now

        init(live: Bool, session: String?, json: Bool = false) {
            self.live = live && !json
            self.session = session
            asJSON = json
        }

        /// Seconds since the view started (the throttle's clock).
        func since() -> Double { (ContinuousClock.now - started).sessionSecondsValue }

        /// Redraws the progress line (a terminal only).
        func draw() {
            guard live else { return }
            let since = (ContinuousClock.now - receivedAt).sessionSecondsValue
            print("\r\u{1B}[K" + TimerLine.render(TimerFollow.extrapolated(status, by: since)), terminator: "")
            flushStandardOutput()
        }

        /// A line above the progress line (on a pipe: a line of its own).
        func emit(_ lines: [String]) {
            guard !lines.isEmpty, !asJSON else { return }
            for line in lines { print((live ? "\r\u{1B}[K" : "") + line) }
            draw()
            flushStandardOutput()
        }

        /// Says that `count` messages were dropped (none: nothing), above the progress line.
        func noteDropped(_ count: Int) {
            guard count > 0 else { return }
            if asJSON {
                printJSONLine(.object(["dropped": .integer(Int64(count))]))
                return flushStandardOutput()
            }
            let what = count == 1 ? "1 message" : "\(count) messages"
            emit(["(\(what) dropped: the broker sent faster than this view was read)"])
        }

        /// A second passed: held cue lines that are due, and the clock moved on.
        mutating func second() {
            emit(throttle.tick(at: since()))
            draw()
        }

        /// Shows what `message` says. Returns true when the session ended (the view is done);
        /// throws exit status 1 when the daemon went offline.
        mutating func show(_ message: BridgeMessage) throws -> Bool {
            guard let json = message.json else { return false }
            if message.topic.hasSuffix("/bridge/state") {
                guard message.availability == "offline" else { return false }
                if asJSON {
                    throw CLIError(
                        "the daemon stopped (\(message.topic) offline): no longer following; the session resumes "
                            + "when the daemon starts again")
                }
                // The view's last line, on stdout like the rest of it; exit status 1.
                emit(throttle.flush())
                print(
                    (live ? "\r\u{1B}[K" : "") + "the daemon stopped (\(message.topic) offline): "
                        + "no longer following; the session resumes when the daemon starts again "
                        + "(`youll-devices timer status`)")
                flushStandardOutput()
                throw ExitCode(1)
            }
            if asJSON { return showJSON(json, topic: message.topic) }
            if message.topic.hasSuffix("/bridge/session") {
                let changed = TimerLine.headline(json) != TimerLine.headline(status)
                status = json
                receivedAt = .now
                if live { draw() } else if changed { emit([TimerLine.render(json)]) }
                return false
            }
            switch TimerFollow.event(json, of: session) {
            case .cue(let line):
                emit(throttle.offer(line, at: since()))
            case .badge(let line):
                emit(throttle.flush() + [line])
            case .ended(let line):
                emit(throttle.flush())
                print((live ? "\r\u{1B}[K" : "") + line)
                return true
            case nil:
                break
            }
            return false
        }

        /// `--json`: the session's status and events as published, one per line.
        mutating func showJSON(_ json: JSONValue, topic: String) -> Bool {
            if topic.hasSuffix("/bridge/session") {
                guard json != status else { return false }
                status = json
                printJSONLine(json)
                flushStandardOutput()
                return false
            }
            guard let event = TimerFollow.event(json, of: session) else { return false }
            printJSONLine(json)
            flushStandardOutput()
            if case .ended = event { return true }
            return false
        }
    }
}
