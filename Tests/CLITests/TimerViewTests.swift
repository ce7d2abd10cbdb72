import Foundation
import Testing
import TuyaCore

@testable import youll_devices

/// Pure: what the timer's progress view shows during the ending, how it paces ramp lines,
/// badges, and how `--until` is read against the clock.
@Suite("timer progress view and --until")
struct TimerViewTests {
    @Test("history lists each start in local time, the days streaks count; text that is not a time shows escaped")
    func historyInLocalTime() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(TimerHistoryCommand.localTime("2026-11-28T23:30:00Z", in: berlin) == "2026-11-29 00:30")
        #expect(TimerHistoryCommand.localTime("2026-07-01T05:00:00Z", in: berlin) == "2026-07-01 07:00")
        #expect(
            TimerHistoryCommand.localTime("2026-11-28T23:30:00Z", in: TimeZone(identifier: "UTC")!)
                == "2026-11-28 23:30")
        #expect(TimerHistoryCommand.localTime("yesterday\u{1b}[2J", in: berlin) == "yesterday\\u{1b}[2J")
        let table = TimerHistoryCommand.table([["started_at": .string("2026-11-28T23:30:00Z")]], timeZone: berlin)
        #expect(table.rows.first?.first == "2026-11-29 00:30")
        // The daemon's own zone wins over this machine's: its streaks count days in it.
        let daemons = TimerHistoryCommand.table(
            [["started_at": .string("2026-11-28T23:30:00Z"), "started_local": .string("2026-11-28T18:30:00-05:00")]],
            timeZone: berlin)
        #expect(daemons.rows.first?.first == "2026-11-28 18:30")
    }

    @Test("during the ending the line says the end effect plays, never 00:00 left")
    func ending() {
        let status: JSONValue = .object([
            "state": .string("running"), "phase": .string("ending"), "elapsed_seconds": .double(75),
            "remaining_seconds": .integer(0),
        ])
        let line = TimerLine.render(status)
        #expect(line == "ending  01:15  the meditation is over; the end effect is playing")
        #expect(!line.contains("left"))
    }

    /// The status and cue events come over the broker, where any client may forge them: a
    /// number out of any sane range makes a line with what is sane in it, never a crash.
    @Test(
        "absurd or negative seconds in a status or a cue give a line, not a crash",
        arguments: [
            JSONValue.double(1e300), .double(-1e300), .integer(.max), .integer(.min), .double(9.3e18), .integer(-5),
        ])
    func hostileSeconds(value: JSONValue) {
        for (elapsed, remaining) in [(value, JSONValue.integer(10)), (.integer(10), value), (value, value)] {
            let line = TimerLine.render(
                .object([
                    "state": .string("running"), "phase": .string("stage"), "stage": .string("sit"),
                    "elapsed_seconds": elapsed, "remaining_seconds": remaining, "next_bell_seconds": value,
                ]))
            #expect(line.hasPrefix("sit  "), "\(line)")
            #expect(line.count < 200, "\(line)")
        }
        let cue = TimerLine.cue(["actual_seconds": value, "description": .string("bell 1"), "outcome": .string("sent")])
        #expect(cue.contains("bell 1  sent"), "\(cue)")
    }

    @Test("a negative elapsed time draws an empty bar, a finished one a full bar")
    func barBounds() {
        func line(_ elapsed: Double, _ remaining: Double) -> String {
            TimerLine.render(
                .object([
                    "state": .string("running"), "phase": .string("stage"), "stage": .string("sit"),
                    "elapsed_seconds": .double(elapsed), "remaining_seconds": .double(remaining),
                ]))
        }
        #expect(line(-5, 10).contains("[" + String(repeating: "-", count: 20) + "]"))
        #expect(line(30, -10).contains("[" + String(repeating: "#", count: 20) + "]"))
    }

    @Test("ramp steps print at most one line a second, the newest held back; other cues at once")
    func throttle() {
        var throttle = CueThrottle()
        func ramp(_ step: Int) -> String { "00:3\(step).0  ramp step \(step)/9  lamp  sent" }
        #expect(throttle.offer(ramp(1), at: 10.0) == [ramp(1)])
        #expect(throttle.offer(ramp(2), at: 10.3) == [])
        #expect(throttle.offer(ramp(3), at: 10.6) == [])
        #expect(throttle.tick(at: 10.9) == [])
        #expect(throttle.tick(at: 11.0) == [ramp(3)])
        #expect(throttle.offer(ramp(4), at: 11.3) == [])
        // Another cue comes out at once, after the held ramp step.
        #expect(throttle.offer("00:40.0  restore  lamp  sent", at: 11.4) == [ramp(4), "00:40.0  restore  lamp  sent"])
        #expect(throttle.flush() == [])
    }

    @Test("an earned badge is shown, whichever session is followed")
    func badge() {
        let event: JSONValue = .object([
            "type": .string("badge_earned"),
            "data": .object(["badge": .string("first_session"), "name": .string("first session")]),
        ])
        #expect(TimerFollow.event(event, of: "s1") == .badge("badge earned: first session"))
    }

    @Test(
        "--until: ahead today is kept; past today within 12 hours means after midnight; tomorrow is said so to the daemon; else refused with the fix"
    )
    func until() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        func at(_ hour: Int, _ minute: Int) throws -> Date {
            try #require(calendar.date(from: DateComponents(year: 2026, month: 3, day: 10, hour: hour, minute: minute)))
        }
        #expect(try TimerUntil.resolve("07:00", now: at(6, 0), calendar: calendar) == "07:00")
        #expect(try TimerUntil.resolve("00:30", now: at(23, 30), calendar: calendar) == "00:30")
        #expect(try TimerUntil.resolve("tomorrow 7:00", now: at(8, 12), calendar: calendar) == "tomorrow 07:00")
        #expect(throws: (any Error).self) { try TimerUntil.resolve("07:00", now: at(8, 12), calendar: calendar) }
        do {
            _ = try TimerUntil.resolve("07:00", now: at(8, 12), calendar: calendar)
        } catch {
            #expect(
                "\(error)"
                    == "--until 07:00 is in the past (it is 08:12 now); did you mean tomorrow? use --until 'tomorrow 07:00' or --minutes N"
            )
        }
        #expect(throws: (any Error).self) {
            try TimerUntil.resolve("tomorrow 09:00", now: at(8, 0), calendar: calendar)
        }
        #expect(throws: (any Error).self) { try TimerUntil.resolve("7h", now: at(8, 0), calendar: calendar) }
    }
}
