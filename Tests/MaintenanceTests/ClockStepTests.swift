import Foundation
import Maintenance
import Testing
import TuyaCore

/// A Raspberry Pi has no battery-backed clock: it boots at 1970 (or at the last shutdown
/// time) and NTP steps it to the real time later. Usage and reminders must not take the
/// step for time that passed.
@Suite("Maintenance across a step of the wall clock")
struct ClockStepTests {
    let device = Fixtures.diffuser
    static let boot = Date(timeIntervalSince1970: 10)
    static let synced = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("the detector sees a step beyond the tolerance, not NTP's slewing, and re-anchors after it")
    func detector() throws {
        var detector = ClockStepDetector()
        #expect(detector.read(wall: Self.boot, monotonic: .seconds(5)) == nil)
        // 100 s pass on both clocks, give or take a slewed second: no step.
        #expect(detector.read(wall: Self.boot.addingTimeInterval(101), monotonic: .seconds(105)) == nil)
        // NTP answers 20 s later: the wall clock jumps to 2027.
        let stepReading = detector.read(wall: Self.synced, monotonic: .seconds(125))
        let step = try #require(stepReading)
        #expect(step.expected == Self.boot.addingTimeInterval(121))
        #expect(step.frameStart == Self.boot)
        #expect(step.offset == Self.synced.timeIntervalSince(Self.boot.addingTimeInterval(121)))
        #expect(step.carried(Self.boot.addingTimeInterval(50)) == Self.synced.addingTimeInterval(50 - 121))
        // A date from before the frame (a previous run's) stays as it was.
        let earlier = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(step.carried(earlier) == earlier)
        // The new frame runs on from the step.
        #expect(detector.read(wall: Self.synced.addingTimeInterval(60), monotonic: .seconds(185)) == nil)
        // A step back (a clock that ran ahead) is a step too.
        let backReading = detector.read(wall: Self.synced, monotonic: .seconds(245))
        let back = try #require(backReading)
        #expect(back.offset == -120)
    }

    @Test(
        "times restored from before the process never move, though the clock booted behind them (set back to its last sync)"
    )
    func restoredTimesStay() throws {
        let lastSync = Self.synced
        let doneBeforeTheCrash = lastSync.addingTimeInterval(30)
        var detector = ClockStepDetector()
        detector.noteRestored(upTo: doneBeforeTheCrash)
        _ = detector.read(wall: lastSync, monotonic: .zero)
        let reading = detector.read(wall: lastSync.addingTimeInterval(7200 + 60), monotonic: .seconds(60))
        let step = try #require(reading)
        #expect(step.carried(doneBeforeTheCrash) == doneBeforeTheCrash)
        // With the restored times before the boot clock, what this process took moves.
        var other = ClockStepDetector()
        other.noteRestored(upTo: lastSync.addingTimeInterval(-100))
        _ = other.read(wall: lastSync, monotonic: .zero)
        let otherReading = other.read(wall: lastSync.addingTimeInterval(7200 + 60), monotonic: .seconds(60))
        let otherStep = try #require(otherReading)
        let taken = lastSync.addingTimeInterval(30)
        #expect(otherStep.carried(taken) == taken.addingTimeInterval(7200))
    }

    @Test("mist running when NTP steps the clock by 55 years counts the minutes that passed, not the years")
    func usageAcrossTheStep() throws {
        var detector = ClockStepDetector()
        var tracker = MaintenanceTracker()
        _ = detector.read(wall: Self.boot, monotonic: .zero)
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: Self.boot)
        _ = tracker.deviceOnline(device, at: Self.boot)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: Self.boot)
        // Ten minutes of mist, then NTP answers; the next report reads the new clock.
        let stepReading = detector.read(wall: Self.synced, monotonic: .seconds(600))
        let step = try #require(stepReading)
        let update = tracker.clockStepped(step)
        #expect(update.alerts.isEmpty)
        _ = tracker.observe(state: Fixtures.misting(true), of: device, at: Self.synced)
        let later = Self.synced.addingTimeInterval(1800)
        #expect(tracker.usage.hours(of: .mist, device: device, at: later) == 40.0 / 60)
        #expect(tracker.usageSnapshot(at: later).entries.allSatisfy { $0.seconds <= 2400 })
        // Nothing is due: 40 minutes of a 40-hour clean, and the 14 days count from the real registration.
        let reports = tracker.report(of: device, at: later)
        #expect(reports.allSatisfy { $0.status == .ok }, "\(reports.map(\.status))")
        let clean = try #require(reports.first { $0.key.type == "clean" })
        #expect(clean.lastDone == Self.synced.addingTimeInterval(-600))
    }

    @Test(
        "a reminder due before a restart does not fall back to ok while the clock reads 1970, so it does not alert again"
    )
    func dueReminderAcrossABootAt1970() throws {
        let registered = Self.synced.addingTimeInterval(-15 * 86_400)
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: registered)
        let due = tracker.tick(at: Self.synced)
        #expect(due.alerts.map(\.id) == ["desk-diffuser:clean:due:1"])
        // The daemon restarts on a Pi that boots at 1970, with the stored states.
        var restarted = MaintenanceTracker(
            reminders: tracker.scheduler.states, usage: tracker.usageSnapshot(at: Self.synced))
        var detector = ClockStepDetector()
        _ = detector.read(wall: Self.boot, monotonic: .zero)
        let early = restarted.register(device, profile: try Fixtures.modernDiffuser(), at: Self.boot)
        #expect(early.transitions.isEmpty && early.alerts.isEmpty)
        #expect(restarted.tick(at: Self.boot.addingTimeInterval(60)).transitions.isEmpty)
        // NTP answers: nothing changes, and nothing alerts again.
        let backAt = Self.synced.addingTimeInterval(3600)
        let stepReading = detector.read(wall: backAt, monotonic: .seconds(120))
        let step = try #require(stepReading)
        #expect(restarted.clockStepped(step).alerts.isEmpty)
        let after = restarted.tick(at: backAt)
        #expect(after.transitions.isEmpty)
        #expect(after.alerts.isEmpty)
        #expect(restarted.report(of: device, at: backAt).first { $0.key.type == "clean" }?.status == .due)
    }

    @Test(
        "a tank running dry while the clock still reads 1970 alerts at once; the clock being behind holds only calendars"
    )
    func faultWhileTheClockIsBehind() throws {
        var tracker = MaintenanceTracker()
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: Self.synced)
        var restarted = MaintenanceTracker(
            reminders: tracker.scheduler.states, usage: tracker.usageSnapshot(at: Self.synced))
        _ = restarted.register(device, profile: try Fixtures.modernDiffuser(), at: Self.boot)
        let dry = restarted.observe(
            state: Fixtures.misting(false, faults: ["water_shortage"]), of: device, at: Self.boot.addingTimeInterval(30)
        )
        #expect(dry.alerts.map(\.id) == ["desk-diffuser:refill:due:1"])
    }

    @Test("a task marked done while the clock read 1970 counts its days from the real time once NTP answers")
    func doneBeforeTheStep() throws {
        var detector = ClockStepDetector()
        var tracker = MaintenanceTracker()
        _ = detector.read(wall: Self.boot, monotonic: .zero)
        _ = tracker.register(device, profile: try Fixtures.modernDiffuser(), at: Self.boot)
        _ = try tracker.markDone(type: "clean", device: device, at: Self.boot.addingTimeInterval(30))
        let stepReading = detector.read(wall: Self.synced, monotonic: .seconds(60))
        let step = try #require(stepReading)
        _ = tracker.clockStepped(step)
        let update = tracker.tick(at: Self.synced)
        #expect(update.transitions.isEmpty)
        #expect(update.alerts.isEmpty)
        let clean = try #require(tracker.report(of: device, at: Self.synced).first { $0.key.type == "clean" })
        #expect(clean.lastDone == Self.synced.addingTimeInterval(-30))
        #expect(clean.status == .ok)
    }
}
