import Foundation
import Testing

@testable import SessionEngine

@Suite("SessionHistory")
struct SessionHistoryTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    let newYork = TimeZone(identifier: "America/New_York")!

    func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    func completed(_ start: Date, minutes: Int = 20) -> SessionSummary {
        SessionSummary(startedAt: start, duration: .seconds(minutes * 60), state: .completed)
    }

    @Test("sessions an hour apart across local midnight are two days in New York, one day in UTC")
    func localMidnight() {
        let late = completed(date(2026, 1, 10, 23, 30, in: newYork))
        let early = completed(date(2026, 1, 11, 0, 30, in: newYork))
        let now = date(2026, 1, 11, 12, 0, in: newYork)
        let local = SessionHistory(sessions: [late, early], timeZone: newYork, now: now)
        #expect(local.currentStreak == 2 && local.longestStreak == 2)
        let utc = SessionHistory(sessions: [late, early], timeZone: TimeZone(identifier: "UTC")!, now: now)
        #expect(utc.currentStreak == 1 && utc.longestStreak == 1)
    }

    @Test("days are calendar days across DST: 24 hours apart over the spring change is not consecutive")
    func springForward() {
        // 2026-03-28 23:30 CET and 2026-03-30 00:30 CEST are exactly 24 h apart, but the
        // 29th (a 23-hour day) has no session.
        let saturday = date(2026, 3, 28, 23, 30, in: berlin)
        let monday = date(2026, 3, 30, 0, 30, in: berlin)
        #expect(monday.timeIntervalSince(saturday) == 24 * 3600)
        let history = SessionHistory(sessions: [completed(saturday), completed(monday)], timeZone: berlin, now: monday)
        #expect(history.longestStreak == 1 && history.currentStreak == 1)

        let sunday = date(2026, 3, 29, 3, 15, in: berlin)
        let full = SessionHistory(
            sessions: [completed(saturday), completed(sunday), completed(monday)], timeZone: berlin, now: monday)
        #expect(full.longestStreak == 3 && full.currentStreak == 3)
    }

    @Test("a session dated in the future (a clock that ran ahead) counts in the totals but does not end today's streak")
    func futureDatedSession() {
        let now = date(2026, 11, 29, 8, 0, in: berlin)
        let sessions = [
            completed(date(2026, 11, 27, 7, 0, in: berlin)),
            completed(date(2026, 11, 28, 7, 0, in: berlin)),
            completed(date(2026, 11, 29, 7, 0, in: berlin)),
            completed(date(2099, 1, 1, 7, 0, in: berlin)),
        ]
        let history = SessionHistory(sessions: sessions, timeZone: berlin, now: now)
        #expect(history.currentStreak == 3 && history.longestStreak == 3)
        #expect(history.lastDay == LocalDay(year: 2026, month: 11, day: 29))
        #expect(history.completedSessions == 4)
    }

    @Test("the 25-hour autumn day counts once, and the next day continues the streak")
    func fallBack() {
        let sessions = [
            completed(date(2026, 10, 25, 0, 30, in: berlin)),
            completed(date(2026, 10, 25, 23, 45, in: berlin)),
            completed(date(2026, 10, 26, 0, 10, in: berlin)),
        ]
        let history = SessionHistory(sessions: sessions, timeZone: berlin, now: date(2026, 10, 26, 9, 0, in: berlin))
        #expect(history.longestStreak == 2 && history.currentStreak == 2)
        #expect(history.lastDay == LocalDay(year: 2026, month: 10, day: 26))
        #expect(history.completedSessions == 3 && history.totalTime == .seconds(60 * 60))
    }

    @Test("the current streak holds through yesterday and is broken by a missed day")
    func currentStreak() {
        let days = (1...5).map { completed(date(2026, 5, $0, 7, 0, in: berlin)) }
        #expect(
            SessionHistory(sessions: days, timeZone: berlin, now: date(2026, 5, 5, 22, 0, in: berlin)).currentStreak
                == 5)
        #expect(
            SessionHistory(sessions: days, timeZone: berlin, now: date(2026, 5, 6, 22, 0, in: berlin)).currentStreak
                == 5)
        let lapsed = SessionHistory(sessions: days, timeZone: berlin, now: date(2026, 5, 7, 0, 5, in: berlin))
        #expect(lapsed.currentStreak == 0 && lapsed.longestStreak == 5)
    }

    @Test("stopped and interrupted sessions count for nothing")
    func onlyCompleted() {
        let start = date(2026, 5, 1, 7, 0, in: berlin)
        let sessions = [
            SessionSummary(startedAt: start, duration: .seconds(3600), state: .stopped),
            SessionSummary(startedAt: start, duration: .seconds(3600), state: .interrupted),
        ]
        let history = SessionHistory(sessions: sessions, timeZone: berlin, now: start)
        #expect(history.completedSessions == 0 && history.totalTime == .zero && history.currentStreak == 0)
        #expect(history.newBadges(alreadyEarned: []).isEmpty)
    }

    @Test("badges are earned once: only those not already earned are new")
    func badges() {
        let week = (1...7).map { completed(date(2026, 6, $0, 6, 30, in: berlin), minutes: 30) }
        let history = SessionHistory(sessions: week, timeZone: berlin, now: date(2026, 6, 7, 8, 0, in: berlin))
        #expect(history.newBadges(alreadyEarned: []) == [.firstSession, .streak7])
        #expect(history.newBadges(alreadyEarned: [.firstSession]) == [.streak7])
        #expect(history.newBadges(alreadyEarned: [.firstSession, .streak7]).isEmpty)

        let sixDays = SessionHistory(
            sessions: Array(week.prefix(6)), timeZone: berlin, now: date(2026, 6, 6, 8, 0, in: berlin))
        #expect(sixDays.newBadges(alreadyEarned: [.firstSession]).isEmpty)
    }

    @Test("ten hours and a hundred sessions are counted over completed sessions")
    func totals() {
        let start = date(2026, 1, 1, 6, 0, in: berlin)
        let hundred = (0..<100).map { index in
            completed(start.addingTimeInterval(Double(index) * 3 * 86_400), minutes: 6)
        }
        let history = SessionHistory(sessions: hundred, timeZone: berlin, now: start)
        #expect(history.totalTime == .seconds(600 * 60))
        #expect(history.newBadges(alreadyEarned: [.firstSession]) == [.tenHours, .hundredSessions])
        let ninetyNine = SessionHistory(sessions: Array(hundred.dropLast()), timeZone: berlin, now: start)
        #expect(ninetyNine.newBadges(alreadyEarned: [.firstSession]).isEmpty)
    }

    @Test("a 30-day streak crosses a month end and a DST change")
    func thirtyDays() {
        let start = date(2026, 3, 15, 21, 0, in: berlin)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let month = (0..<30).map { completed(calendar.date(byAdding: .day, value: $0, to: start)!, minutes: 15) }
        let history = SessionHistory(sessions: month, timeZone: berlin, now: month.last!.startedAt)
        #expect(history.longestStreak == 30 && history.currentStreak == 30)
        #expect(history.newBadges(alreadyEarned: [.firstSession, .streak7]) == [.streak30])
    }

    @Test("local day numbers are consecutive across month, year and leap-day boundaries")
    func dayNumbers() {
        #expect(LocalDay(year: 1970, month: 1, day: 1).number == 0)
        #expect(LocalDay(year: 2024, month: 3, day: 1).number - LocalDay(year: 2024, month: 2, day: 28).number == 2)
        #expect(LocalDay(year: 2026, month: 1, day: 1).number - LocalDay(year: 2025, month: 12, day: 31).number == 1)
        #expect(
            LocalDay(Date(timeIntervalSince1970: 86_400 * 20_000), in: TimeZone(identifier: "UTC")!).number == 20_000)
    }
}
