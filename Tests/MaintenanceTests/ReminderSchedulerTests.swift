import Foundation
import Testing
import TuyaCore

@testable import Maintenance

@Suite("Reminder scheduler")
struct ReminderSchedulerTests {
    let device = Fixtures.diffuser

    private func key(_ type: String) -> ReminderKey { ReminderKey(device: device, type: type) }

    private func status(_ tracker: MaintenanceTracker, _ type: String) -> ReminderStatus? {
        tracker.scheduler.state(of: key(type))?.status
    }

    @Test("clean becomes due soon at 80 % of 40 mist hours, due at 40 and overdue at 60, each stored with its time")
    func usageThresholds() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        var transitions: [ReminderTransition] = []
        for _ in 0..<61 {
            time.advance(hours: 1)
            transitions += tracker.tick(at: time.now).transitions.filter { $0.key.type == "clean" }
        }
        let hour = { (hours: Double) in time.origin.addingTimeInterval(hours * 3600) }
        #expect(
            transitions == [
                ReminderTransition(key: key("clean"), from: .ok, to: .dueSoon, at: hour(32), cause: .usage("mist")),
                ReminderTransition(key: key("clean"), from: .dueSoon, to: .due, at: hour(40), cause: .usage("mist")),
                ReminderTransition(key: key("clean"), from: .due, to: .overdue, at: hour(60), cause: .usage("mist")),
            ])
        #expect(status(tracker, "replace-wick") == .ok)
    }

    @Test("with the diffuser idle, clean follows the calendar: due soon on day 11.2, due on day 14, overdue on day 21")
    func calendarThresholds() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        time.advance(hours: 268.5)  // day 11.2 is hour 268.8
        #expect(tracker.tick(at: time.now).transitions.isEmpty)
        time.advance(hours: 0.5)
        #expect(tracker.tick(at: time.now).transitions.map(\.to) == [.dueSoon])
        time.advance(hours: 67)  // hour 336: day 14
        #expect(tracker.tick(at: time.now).transitions.map(\.cause) == [.calendar])
        #expect(status(tracker, "clean") == .due)
        time.advance(hours: 167)
        #expect(tracker.tick(at: time.now).transitions.isEmpty)
        time.advance(hours: 1)  // hour 504: day 21
        #expect(tracker.tick(at: time.now).transitions.map(\.to) == [.overdue])
    }

    @Test("whichever trigger comes first wins: usage makes it due soon, then the calendar makes it due")
    func whicheverFirst() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.resettingDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 5)  // half of 10 mist hours: due_soon_at 0.5
        _ = tracker.observe(state: Fixtures.misting(false), of: device, at: time.now)
        #expect(status(tracker, "clean") == .dueSoon)
        time.advance(days: 20)
        let update = tracker.tick(at: time.now)
        #expect(
            update.transitions.first { $0.key.type == "clean" }
                == ReminderTransition(key: key("clean"), from: .dueSoon, to: .due, at: time.now, cause: .calendar))
    }

    @Test("a water-shortage fault makes refill due at once and overdue after a day; clearing it returns to ok")
    func faultTrigger() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        let raised = tracker.observe(
            state: Fixtures.misting(false, faults: ["water_shortage"]), of: device, at: time.now)
        #expect(
            raised.transitions == [
                ReminderTransition(
                    key: key("refill"), from: .ok, to: .due, at: time.now, cause: .fault("water_shortage"))
            ])
        time.advance(hours: 23)
        _ = tracker.observe(state: Fixtures.misting(false, faults: ["water_shortage"]), of: device, at: time.now)
        #expect(status(tracker, "refill") == .due)
        time.advance(hours: 1)
        #expect(tracker.tick(at: time.now).transitions.map(\.to) == [.overdue])
        // Offline: the fault is unknown, so refill stays as it was.
        _ = tracker.deviceOffline(device, at: time.now)
        #expect(status(tracker, "refill") == .overdue)
        let cleared = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        #expect(cleared.transitions.map(\.cause) == [.faultCleared])
        #expect(status(tracker, "refill") == .ok)
    }

    @Test("a fault still reported after 'done' stays acknowledged until it clears, then counts again")
    func doneAcknowledgesFault() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        let dry = Fixtures.misting(false, faults: ["water_shortage"])
        _ = tracker.observe(state: dry, of: device, at: time.now)
        _ = try tracker.markDone(type: "refill", device: device, at: time.now)
        time.advance(hours: 1)
        _ = tracker.observe(state: dry, of: device, at: time.now)
        #expect(status(tracker, "refill") == .ok)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 3)
        _ = tracker.observe(state: dry, of: device, at: time.now)
        #expect(status(tracker, "refill") == .due)
    }

    @Test("done is idempotent: the first returns the reset DP write and the transition, the second nothing")
    func doneIdempotent() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.resettingDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 12)
        _ = tracker.tick(at: time.now)
        #expect(status(tracker, "clean") == .due)

        let first = try tracker.markDone(type: "clean", device: device, at: time.now)
        #expect(
            first.transitions == [
                ReminderTransition(key: key("clean"), from: .due, to: .ok, at: time.now, cause: .done)
            ])
        #expect(
            first.resetWrites == [
                MaintenanceUpdate.ResetWrite(
                    device: device, type: "clean", dataPoints: [DataPointID(102)!: .bool(true)])
            ])
        #expect(first.reminders.map(\.key) == [key("clean")])
        // Counters restart: the 12 mist hours no longer count.
        #expect(try tracker.report(type: "clean", device: device, at: time.now).percentRemaining == 100)

        time.advance(hours: 0.5)
        let second = try tracker.markDone(type: "clean", device: device, at: time.now)
        #expect(second.isEmpty)
        #expect(tracker.scheduler.state(of: key("clean"))?.lastDone == time.now.addingTimeInterval(-1800))
        // A rule without a reset DP writes nothing.
        let refill = try tracker.markDone(type: "refill", device: device, at: time.now)
        #expect(refill.resetWrites.isEmpty)
    }

    @Test("after 'done' the next cycle counts again and a later 'done' works again")
    func nextCycle() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.resettingDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 10)
        _ = tracker.tick(at: time.now)
        _ = try tracker.markDone(type: "clean", device: device, at: time.now)
        time.advance(hours: 10)
        _ = tracker.tick(at: time.now)
        #expect(status(tracker, "clean") == .due)
        #expect(try tracker.markDone(type: "clean", device: device, at: time.now).resetWrites.count == 1)
    }

    @Test("% remaining is the least left of any trigger, 0 during a fault; next due is the calendar date")
    func percentRemaining() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 10)
        _ = tracker.observe(state: Fixtures.misting(false), of: device, at: time.now)
        var clean = try tracker.report(type: "clean", device: device, at: time.now)
        #expect(clean.percentRemaining == 75)  // 10 of 40 mist hours used
        #expect(clean.nextDue == time.origin.addingTimeInterval(14 * 86_400))
        time.advance(days: 7)
        clean = try tracker.report(type: "clean", device: device, at: time.now.addingTimeInterval(-36_000))
        #expect(clean.percentRemaining == 50)  // 7 of 14 days
        let wick = try tracker.report(type: "replace-wick", device: device, at: time.now)
        #expect(wick.percentRemaining == 95)  // 7 days 10 hours of 180 days beats 10 of 500 hours
        #expect(try tracker.report(type: "refill", device: device, at: time.now).percentRemaining == 100)
        _ = tracker.observe(state: Fixtures.misting(false, faults: ["water_shortage"]), of: device, at: time.now)
        let refill = try tracker.report(type: "refill", device: device, at: time.now)
        #expect(refill.percentRemaining == 0)
        #expect(refill.nextDue == time.now)
        #expect(refill.steps.count >= 3 && refill.title == "Refill the water tank")
        #expect(tracker.report(at: time.now).map(\.key.type) == ["refill", "clean", "replace-wick"])
    }

    @Test("one device's reminders are its own, in profile order, the same as in the full report")
    func oneDevicesReport() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        _ = tracker.register(Fixtures.other, profile: try Fixtures.modernDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(false, faults: ["water_shortage"]), of: device, at: time.now)
        let mine = tracker.report(of: device, at: time.now)
        #expect(mine.map(\.key.type) == ["refill", "clean", "replace-wick"])
        #expect(mine.allSatisfy { $0.key.device == device })
        #expect(mine == tracker.report(at: time.now).filter { $0.key.device == device })
        #expect(mine.first?.percentRemaining == 0)
        #expect(tracker.report(of: Fixtures.other, at: time.now).first?.percentRemaining == 100)
        #expect(tracker.report(of: DeviceID("never-paired")!, at: time.now).isEmpty)
    }

    @Test("snooze keeps the status, holds alerts back, and alerts again when it ends")
    func snooze() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        time.advance(days: 14)
        let due = tracker.tick(at: time.now)
        #expect(due.alerts.map(\.id) == ["desk-diffuser:clean:due:1"])
        let snoozed = try tracker.snooze(type: "clean", device: device, for: .seconds(2 * 86_400), at: time.now)
        #expect(snoozed.transitions.map(\.cause) == [.snoozed(until: time.now.addingTimeInterval(2 * 86_400))])
        #expect(status(tracker, "clean") == .due)
        time.advance(hours: 47)
        #expect(tracker.tick(at: time.now).alerts.isEmpty)
        #expect(try tracker.report(type: "clean", device: device, at: time.now).snoozedUntil != nil)
        time.advance(hours: 1)
        let ended = tracker.tick(at: time.now)
        #expect(ended.transitions.map(\.cause) == [.snoozeEnded])
        #expect(ended.alerts.map(\.id) == ["desk-diffuser:clean:due:2"])
    }

    @Test("unknown devices and types and impossible snoozes are refused with what to do")
    func refusals() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        #expect(throws: MaintenanceError.unknownDevice(Fixtures.other)) {
            try tracker.markDone(type: "clean", device: Fixtures.other, at: time.now)
        }
        do {
            _ = try tracker.markDone(type: "descale", device: device, at: time.now)
            Issue.record("descale was accepted")
        } catch {
            #expect(
                error.description
                    == "device desk-diffuser has no 'descale' reminder; its types are: refill, clean, replace-wick")
        }
        #expect(throws: MaintenanceError.self) {
            try tracker.snooze(type: "clean", device: device, for: .zero, at: time.now)
        }
        #expect(throws: MaintenanceError.self) {
            try tracker.snooze(type: "clean", device: device, for: .seconds(400 * 86_400), at: time.now)
        }
    }

    @Test("reminder states restored from JSON keep a due reminder due and do not alert it again")
    func restart() throws {
        let time = TestTime()
        let profile = try Fixtures.modernDiffuser()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: profile, at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 41)
        let due = tracker.tick(at: time.now)
        #expect(due.alerts.map(\.state) == [.due])
        let stored = try JSONEncoder().encode(tracker.scheduler.states)
        let usage = tracker.usageSnapshot(at: time.now)

        time.advance(hours: 2)
        let states = try JSONDecoder().decode([ReminderState].self, from: stored)
        var restarted = MaintenanceTracker(reminders: states, usage: usage)
        let registered = restarted.register(device, profile: profile, at: time.now)
        #expect(registered.alerts.isEmpty && registered.transitions.isEmpty)
        #expect(restarted.scheduler.state(of: key("clean"))?.status == .due)
        #expect(try restarted.report(type: "clean", device: device, at: time.now).percentRemaining == 0)
        #expect(restarted.usage.hours(of: .mist, device: device, at: time.now) == 41)
    }

    @Test("one device's reminder list is its part of the full list, in the same order")
    func oneDevicesListWithOtherProfiles() throws {
        let time = TestTime()
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: time.now)
        _ = tracker.register(Fixtures.other, profile: try Fixtures.resettingDiffuser(), at: time.now)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 3)
        let all = tracker.report(at: time.now)
        for id in [device, Fixtures.other] {
            let mine = tracker.report(of: id, at: time.now)
            #expect(!mine.isEmpty)
            #expect(mine == all.filter { $0.key.device == id })
        }
        #expect(tracker.report(of: DeviceID("unpaired")!, at: time.now).isEmpty)
    }
}
