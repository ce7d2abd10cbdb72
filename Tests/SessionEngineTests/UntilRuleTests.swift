import Foundation
import SessionEngine
import Testing

/// Which occurrence "until HH:MM" may mean, as the daemon checks it for every client.
@Suite("UntilRule")
struct UntilRuleTests {
    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }

    func at(_ hour: Int, _ minute: Int, second: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: 2026, month: 3, day: 10, hour: hour, minute: minute, second: second))!
    }

    func time(_ hour: Int, _ minute: Int) -> TimeOfDay { TimeOfDay(hour: hour, minute: minute)! }

    @Test("later today and after midnight within 12 hours are kept; tomorrow's is kept when said so")
    func kept() throws {
        try UntilRule.check(time(7, 0), tomorrow: false, now: at(6, 0), calendar: calendar)
        try UntilRule.check(time(23, 0), tomorrow: false, now: at(1, 0), calendar: calendar)
        try UntilRule.check(time(0, 30), tomorrow: false, now: at(23, 30), calendar: calendar)
        try UntilRule.check(time(7, 0), tomorrow: true, now: at(7, 1), calendar: calendar)
    }

    @Test("a time that passed moments ago is in the past, not tomorrow's; tomorrow past 24 hours is refused")
    func refused() {
        // The CLI accepted 07:30 at 07:29:59; the request reached the daemon at 07:30:00.4.
        #expect(throws: SessionError.untilPassed(until: "07:30", now: "07:30")) {
            try UntilRule.check(
                self.time(7, 30), tomorrow: false, now: self.at(7, 30, second: 1), calendar: self.calendar)
        }
        #expect(throws: SessionError.untilPassed(until: "07:00", now: "08:12")) {
            try UntilRule.check(self.time(7, 0), tomorrow: false, now: self.at(8, 12), calendar: self.calendar)
        }
        #expect(throws: SessionError.untilBeyondADay(until: "09:00", now: "08:00")) {
            try UntilRule.check(self.time(9, 0), tomorrow: true, now: self.at(8, 0), calendar: self.calendar)
        }
    }
}
