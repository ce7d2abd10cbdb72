import Foundation
import Gateway
import SessionEngine
import Storage
import Testing
import TuyaCore
import YoullTestSupport

/// Recovery with the time a session's elapsed was saved at, over the real SQLite store: where a
/// running session is after the daemon was down, and when a pause carried across a restart
/// runs out.
@Suite("the session service: resuming where the session is now")
struct SessionServiceRecoveryTests {
    typealias Rig = SessionServiceTests.Rig

    static func record(state: SessionState, startedAgo: TimeInterval, savedAgo: TimeInterval) -> SessionRecord {
        var record = SessionServiceTests.record(state: state, startedAgo: startedAgo)
        record.elapsedAt = SessionServiceTests.now.addingTimeInterval(-savedAgo)
        return record
    }

    @Test(
        "a session paused before a restart, past its length on the wall clock, resumes with the downtime counted"
    )
    func resumesWhereItIsNow() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        // Started 1300 s ago, 120 s of practice saved 10 s ago: it was paused for most of it.
        try await rig.store.save(Self.record(state: .running, startedAgo: 1300, savedAgo: 10))
        await rig.service.recover()
        let status = try #require(await rig.service.status())
        #expect(status.state == .running)
        #expect(status.elapsed == .seconds(130))
        #expect(status.remaining == .seconds(470))
        #expect(rig.logged.lines.withLock { $0 }.contains { $0.contains("10 s went by while the daemon was stopped") })
        _ = try await rig.service.stop(immediately: true)
    }

    @Test("a session paused across a restart is stopped timer.max_pause after its pause began, not after the start")
    func pauseCountsFromItsStart() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .paused, startedAgo: 4000, savedAgo: 3000))
        await rig.service.recover()
        #expect(await rig.service.status()?.state == .paused)
        let stored = try #require(try await rig.store.session(SessionID("recovered-1")!))
        #expect(stored.elapsedAt == SessionServiceTests.now.addingTimeInterval(-3000), "the pause keeps its start")
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(600)))
        rig.clock.advance(by: .seconds(600))
        try await Self.waitForStop(rig)
    }

    @Test("a session whose pause ran out while the daemon was down is stopped at the start, its end state applied")
    func pauseRanOutWhileDown() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .paused, startedAgo: 9000, savedAgo: 7200))
        await rig.service.recover()
        try await Self.waitForStop(rig)
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[SessionServiceTests.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
    }

    @Test("a hand-edited time of a session's elapsed neither stops the daemon nor resumes it from long ago")
    func hostileElapsedAt() async throws {
        for (state, seconds) in [(SessionState.running, -1e300), (.paused, -1e300), (.running, 1e300)] {
            let rig = try Rig()
            defer { rig.remove() }
            var record = SessionServiceTests.record(state: state, startedAgo: 130)
            record.elapsedAt = Date(timeIntervalSince1970: seconds)
            try await rig.store.save(record)
            await rig.service.recover()
            let stored = try #require(try await rig.store.session(record.id))
            switch (state, seconds > 0) {
            case (.running, false):
                #expect(stored.state == .interrupted, "a year went by")
            case (.running, true):
                // Saved "in the future": no downtime, resumed where it was saved.
                #expect(await rig.service.status()?.elapsed == .seconds(120))
                _ = try await rig.service.stop(immediately: true)
            default:
                try await Self.waitForStop(rig)
            }
        }
    }

    static func waitForStop(_ rig: Rig) async throws {
        let announcements = rig.announcements
        try await withDeadline(60, "the session to stop") {
            for await announcement in announcements {
                if case .ended(_, _, .stopped, .seconds(120)) = announcement { return }
            }
        }
        let stored = try #require(try await rig.store.session(SessionID("recovered-1")!))
        #expect(stored.state == .stopped)
    }
}
