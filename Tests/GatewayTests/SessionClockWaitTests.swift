import Foundation
import Gateway
import SessionEngine
import Storage
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

/// A gateway without a real-time clock (a Raspberry Pi) starts after a power cut on the time
/// it last saved, behind, until NTP answers. A session that was running waits for the clock
/// rather than resuming at a guess: after a 30-minute outage its bells would otherwise ring
/// half an hour late and the sit would be credited in full. Over the real SQLite store, on a
/// manual clock.
@Suite("the session service: recovery waits for the wall clock")
struct SessionClockWaitTests {
    typealias Rig = SessionServiceTests.Rig

    /// The wall clock as the machine reads it, whether NTP has answered, and whether
    /// maintenance alerts hold for a session (`onActiveChange`).
    final class WallClock: Sendable {
        let time = Mutex(SessionServiceTests.now)
        let isSet = Mutex(false)
        let holding = Mutex(false)
    }

    /// A rig whose wall clock and its being set are the test's, with the default 3-minute wait.
    static func rig(_ wall: WallClock) throws -> Rig {
        var settings = SessionService.Settings()
        settings.wallClockIsSet = { wall.isSet.withLock { $0 } }
        return try Rig(
            now: { wall.time.withLock { $0 } }, settings: settings,
            onActiveChange: { active in wall.holding.withLock { $0 = active } })
    }

    /// Running, 120 s of practice saved at `SessionServiceTests.now`, started 130 s before.
    static func savedRecord() -> SessionRecord {
        var record = SessionServiceTests.record(state: .running, startedAgo: 130)
        record.elapsedAt = SessionServiceTests.now
        return record
    }

    /// A rig whose saved session waits for the clock: the machine started on the time it had
    /// saved an hour before the power cut.
    static func held() async throws -> (WallClock, Rig) {
        let wall = WallClock()
        let rig = try rig(wall)
        try await rig.store.save(savedRecord())
        wall.time.withLock { $0 = SessionServiceTests.now.addingTimeInterval(-3600) }
        await rig.service.recover()
        return (wall, rig)
    }

    /// Advances the manual clock by the wait's 5-second rechecks, `count` times; before the
    /// last, once the wait sleeps (so it sees the change at its next check), runs `change`.
    static func recheck(_ rig: Rig, times count: Int, after change: () -> Void = {}) async {
        for time in 0..<count {
            await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(5)))
            if time == count - 1 { change() }
            rig.clock.advance(by: .seconds(5))
        }
    }

    @Test("after a power cut the session waits for NTP, then resumes with the real downtime counted")
    func waitsThenResumes() async throws {
        let (wall, rig) = try await Self.held()
        defer { rig.remove() }
        #expect(await !rig.service.isActive, "not resumed at a guess")
        #expect(try await rig.store.session(Self.savedRecord().id)?.state == .running, "still to recover")
        #expect(rig.logged.lines.withLock { $0 }.contains { $0.contains("waiting up to 180 s") })
        await Self.recheck(rig, times: 2)
        #expect(await !rig.service.isActive)
        await Self.recheck(rig, times: 1) {
            // NTP answers: the power was off for 200 s.
            wall.time.withLock { $0 = SessionServiceTests.now.addingTimeInterval(200) }
            wall.isSet.withLock { $0 = true }
        }
        var announcements = rig.announcements.makeAsyncIterator()
        // The first announcement is the resumed session's start.
        guard case .started(let status, _, _, let resumed, _) = await announcements.next() else {
            Issue.record("no session was resumed")
            return
        }
        #expect(resumed)
        #expect(status.elapsed == .seconds(320))
        #expect(rig.logged.lines.withLock { $0 }.contains { $0.contains("200 s went by while the daemon was stopped") })
        _ = try await rig.service.stop(immediately: true)
    }

    @Test("a power cut past the session's end is found over once NTP answers, not resumed")
    func overOnceSet() async throws {
        let wall = WallClock()
        let rig = try Self.rig(wall)
        defer { rig.remove() }
        try await rig.store.save(Self.savedRecord())
        wall.time.withLock { $0 = Date(timeIntervalSince1970: 0) }
        await rig.service.recover()
        await Self.recheck(rig, times: 1) {
            wall.time.withLock { $0 = SessionServiceTests.now.addingTimeInterval(3600) }
            wall.isSet.withLock { $0 = true }
        }
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[SessionServiceTests.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
        let stored = try #require(try await rig.store.session(Self.savedRecord().id))
        #expect(stored.state == .interrupted)
        #expect(await !rig.service.isActive)
    }

    @Test("when NTP never answers, the session is recorded interrupted after the wait, its end state applied")
    func neverSet() async throws {
        let (_, rig) = try await Self.held()
        defer { rig.remove() }
        await Self.recheck(rig, times: 35)
        #expect(try await rig.store.session(Self.savedRecord().id)?.state == .running, "still waiting at 2 min 55 s")
        await Self.recheck(rig, times: 1)
        var announcements = rig.announcements.makeAsyncIterator()
        guard case .ended(_, _, let state, let elapsed) = await announcements.next() else {
            Issue.record("the session was not ended")
            return
        }
        #expect(state == .interrupted)
        #expect(elapsed == .seconds(120), "the practice saved, no guessed downtime")
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[SessionServiceTests.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
        #expect(try await rig.store.session(Self.savedRecord().id)?.state == .interrupted)
        #expect(rig.logged.lines.withLock { $0 }.contains { $0.contains("the wall clock was not set within 180 s") })
    }

    @Test("a clock that reads after the last save resumes at once, as on a gateway whose clock is set")
    func clockAheadResumesAtOnce() async throws {
        let wall = WallClock()
        let rig = try Self.rig(wall)
        defer { rig.remove() }
        try await rig.store.save(Self.savedRecord())
        wall.time.withLock { $0 = SessionServiceTests.now.addingTimeInterval(30) }
        await rig.service.recover()
        #expect(await rig.service.status()?.elapsed == .seconds(150))
        _ = try await rig.service.stop(immediately: true)
    }

    @Test("a daemon stopped while the session waits for the clock leaves it stored as running for the next start")
    func suspendWhileWaiting() async throws {
        let (_, rig) = try await Self.held()
        defer { rig.remove() }
        await Self.recheck(rig, times: 1)
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(5)))
        await rig.service.suspend()
        #expect(rig.clock.armed.isEmpty, "the wait ended with the daemon")
        let stored = try #require(try await rig.store.session(Self.savedRecord().id))
        #expect(stored.state == .running)
        #expect(stored.elapsed == .seconds(120))
        #expect(await !rig.service.isActive)
    }

    @Test("a session started while a leftover waits for the clock takes the devices; the leftover is interrupted")
    func startWhileWaiting() async throws {
        let (wall, rig) = try await Self.held()
        defer { rig.remove() }
        #expect(wall.holding.withLock { $0 }, "maintenance alerts hold while the session may resume")
        let started = try await rig.service.start(SessionStartRequest(configuration: .minutes(10)))
        #expect(started.id != Self.savedRecord().id)
        #expect(try await rig.store.session(Self.savedRecord().id)?.state == .interrupted)
        #expect(rig.clock.armed.allSatisfy { $0 != rig.clock.now.advanced(by: .seconds(5)) }, "the wait ended")
        #expect(wall.holding.withLock { $0 })
        _ = try await rig.service.stop(immediately: true)
    }

    @Test("a stop while the session waits for the clock ends it, its end state applied, and lets alerts go")
    func stopWhileWaiting() async throws {
        let (wall, rig) = try await Self.held()
        defer { rig.remove() }
        let stopped = try await rig.service.stop()
        #expect(stopped.state == .stopped)
        #expect(try await rig.store.session(Self.savedRecord().id)?.state == .stopped)
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[SessionServiceTests.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
        #expect(!wall.holding.withLock { $0 })
        #expect(rig.clock.armed.isEmpty)
    }

    @Test("a stop while waiting for the clock records a sit whose meditation was over as completed")
    func stopAfterItsMeditation() async throws {
        let wall = WallClock()
        let rig = try Self.rig(wall)
        defer { rig.remove() }
        var record = Self.savedRecord()
        record.elapsed = .seconds(600)  // its whole stage: only the end effect was left
        try await rig.store.save(record)
        wall.time.withLock { $0 = SessionServiceTests.now.addingTimeInterval(-3600) }
        await rig.service.recover()
        let stopped = try await rig.service.stop()
        #expect(stopped.state == .completed)
        #expect(try await rig.store.session(record.id)?.state == .completed)
    }
}
