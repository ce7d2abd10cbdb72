import Gateway
import Testing
import TuyaCore

@testable import youll_devices

/// Pure: how `timer status --follow` moves a status on between messages and reads events.
@Suite("timer follow view")
struct TimerFollowTests {
    @Test("a running session's clock moves on: elapsed grows, remaining and the next bell count down to zero")
    func extrapolatesRunning() {
        let status: JSONValue = .object([
            "state": .string("running"), "elapsed_seconds": .integer(10), "remaining_seconds": .double(3.5),
            "next_bell_seconds": .integer(1), "stage": .string("sit"),
        ])
        #expect(
            TimerFollow.extrapolated(status, by: 2)
                == .object([
                    "state": .string("running"), "elapsed_seconds": .double(12), "remaining_seconds": .double(1.5),
                    "next_bell_seconds": .double(0), "stage": .string("sit"),
                ]))
    }

    @Test("a session that is not running, or a status that is not an object, is shown as received")
    func leavesOthersAlone() {
        let paused: JSONValue = .object(["state": .string("paused"), "elapsed_seconds": .integer(10)])
        #expect(TimerFollow.extrapolated(paused, by: 5) == paused)
        #expect(TimerFollow.extrapolated(.string("garbage"), by: 5) == .string("garbage"))
        let noClock: JSONValue = .object(["state": .string("running"), "elapsed_seconds": .string("ten")])
        #expect(TimerFollow.extrapolated(noClock, by: 5) == noClock)
    }

    @Test("cues and the end of the followed session are read; other sessions, types and garbage are not")
    func readsEvents() {
        func event(_ type: String, _ data: [String: JSONValue]) -> JSONValue {
            .object(["type": .string(type), "data": .object(data)])
        }
        let cue = event(
            "session_cue", ["id": .string("s1"), "description": .string("bell"), "actual_seconds": .integer(4)])
        #expect(TimerFollow.event(cue, of: "s1") == .cue("00:04.0  bell  "))
        #expect(TimerFollow.event(cue, of: nil) == .cue("00:04.0  bell  "))
        #expect(TimerFollow.event(cue, of: "s2") == nil)
        let end = event(
            "session_ended", ["id": .string("s1"), "state": .string("completed"), "elapsed_seconds": .integer(75)])
        #expect(TimerFollow.event(end, of: "s1") == .ended("session completed after 01:15"))
        #expect(TimerFollow.event(event("device_paired", ["id": .string("s1")]), of: "s1") == nil)
        #expect(TimerFollow.event(.object(["type": .string("session_cue")]), of: nil) == nil)
        #expect(TimerFollow.event(.array([]), of: nil) == nil)
    }

    @Test("the pump stops at what ends the view, read as the view reads it: a bare 'offline' from anyone does not")
    func endsTheView() {
        func message(_ topic: String, _ text: String) -> BridgeMessage {
            BridgeMessage(topic: "youll/bridge/\(topic)", payload: Array(text.utf8), retained: false)
        }
        #expect(!TimerFollow.endsTheView(message("state", "offline"), session: nil))
        #expect(TimerFollow.endsTheView(message("state", #"{"state":"offline"}"#), session: nil))
        #expect(!TimerFollow.endsTheView(message("state", #"{"state":"online"}"#), session: nil))
        let ended = #"{"type":"session_ended","data":{"id":"s1","state":"completed","elapsed_seconds":60}}"#
        #expect(TimerFollow.endsTheView(message("event", ended), session: "s1"))
        #expect(!TimerFollow.endsTheView(message("event", ended), session: "s2"))
    }
}
