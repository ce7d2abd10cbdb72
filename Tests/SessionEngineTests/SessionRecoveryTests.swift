import Foundation
import Testing
import TuyaCore

@testable import SessionEngine

// Pure unit tests: a record, its timeline and the time now, chosen by hand.
@Suite("SessionRecovery")
struct SessionRecoveryTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func timeline() throws -> SessionTimeline {
        let stages = [SessionStage(name: "sit", length: .seconds(600), bellInterval: .seconds(300))]
        return try SessionPlanner().plan(
            ResolvedSession(warmUp: .zero, stages: stages, isOpenEnded: false), preset: .calm, devices: [])
    }

    static func record(_ state: SessionState, endingStartedAt: Duration? = nil) throws -> SessionRecord {
        let timeline = try timeline()
        return SessionRecord(
            id: SessionID("recovered-1")!, presetName: "calm",
            configuration: SessionConfiguration(length: .stages(timeline.session.stages)), session: timeline.session,
            devices: [], state: state, startedAt: start, elapsed: .seconds(120), endingStartedAt: endingStartedAt)
    }

    @Test(
        "a running session saved without the time of its elapsed resumes where it was saved, skipping the logged cues"
    )
    func resumesBeforeEnd() throws {
        let timeline = try Self.timeline()
        let first = try #require(timeline.cues.first)
        let log = [
            CueRecord(
                cueIndex: first.index, kind: first.kind, deviceID: first.deviceID, planned: first.offset,
                actual: first.offset, outcome: .marked)
        ]
        let decision = SessionRecovery.decide(
            try Self.record(.running), timeline: timeline, cueLog: log, otherActive: false,
            now: Self.start.addingTimeInterval(130))
        #expect(decision == .resume(.init(elapsed: .seconds(120), firedCues: [first.index])))
    }

    @Test("a running session past its planned end is interrupted; a paused one resumes paused whenever it is")
    func pastTheEnd() throws {
        let late = Self.start.addingTimeInterval(7200)
        #expect(
            SessionRecovery.decide(
                try Self.record(.running), timeline: try Self.timeline(), cueLog: [], otherActive: false, now: late)
                == .interrupt)
        #expect(
            SessionRecovery.decide(
                try Self.record(.paused), timeline: try Self.timeline(), cueLog: [], otherActive: false, now: late)
                == .resume(.init(elapsed: .seconds(120), paused: true)))
    }

    @Test("a session being ended counts its end from the ending's start plus the end effect")
    func endingCountsFromItsStart() throws {
        let timeline = try Self.timeline()
        let effect = timeline.endingCues.last?.offset ?? .zero
        let record = try Self.record(.running, endingStartedAt: .seconds(100))
        let justBefore = Self.start.addingTimeInterval((Duration.seconds(100) + effect).sessionSeconds - 1)
        let justAfter = Self.start.addingTimeInterval((Duration.seconds(100) + effect).sessionSeconds + 1)
        #expect(
            SessionRecovery.decide(record, timeline: timeline, cueLog: [], otherActive: false, now: justBefore)
                != .interrupt)
        #expect(
            SessionRecovery.decide(record, timeline: timeline, cueLog: [], otherActive: false, now: justAfter)
                == .interrupt)
    }

    @Test("a second session found while one is already resumed is interrupted")
    func oneAtATime() throws {
        #expect(
            SessionRecovery.decide(
                try Self.record(.paused), timeline: try Self.timeline(), cueLog: [], otherActive: true,
                now: Self.start) == .interrupt)
    }

    @Test("a running session resumes where it is now: the time the daemon was down counts, pauses before it do not")
    func resumesWhereItIsNow() throws {
        var record = try Self.record(.running)
        // Paused for 580 s before the restart: long past start + length on the wall clock.
        record.elapsedAt = Self.start.addingTimeInterval(700)
        let decision = SessionRecovery.decide(
            record, timeline: try Self.timeline(), cueLog: [], otherActive: false,
            now: Self.start.addingTimeInterval(710))
        #expect(decision == .resume(.init(elapsed: .seconds(130), missedSince: .seconds(120))))
    }

    @Test("a running session whose practice time ran past its end while the daemon was down is over")
    func overWhileDown() throws {
        let timeline = try Self.timeline()
        var record = try Self.record(.running)
        record.elapsedAt = Self.start.addingTimeInterval(130)
        let after = Self.start.addingTimeInterval(130 + timeline.totalDuration.sessionSeconds)
        #expect(
            SessionRecovery.decide(record, timeline: timeline, cueLog: [], otherActive: false, now: after)
                == .interrupt)
        record.elapsed = timeline.end + .seconds(5)
        #expect(
            SessionRecovery.decide(record, timeline: timeline, cueLog: [], otherActive: false, now: after)
                == .complete(length: timeline.end))
    }

    @Test("a paused session resumes paused at its elapsed time, however long ago it was saved")
    func pausedStaysPaused() throws {
        var record = try Self.record(.paused)
        record.elapsedAt = Self.start.addingTimeInterval(130)
        #expect(
            SessionRecovery.decide(
                record, timeline: try Self.timeline(), cueLog: [], otherActive: false,
                now: Self.start.addingTimeInterval(86400)) == .resume(.init(elapsed: .seconds(120), paused: true)))
    }

    @Test("fired cues are recognised by kind and device when a device was removed while the daemon was down")
    func firedCuesAfterRemoval() throws {
        let stages = [SessionStage(name: "sit", length: .seconds(1200), bellInterval: .seconds(300))]
        let session = ResolvedSession(warmUp: .zero, stages: stages, isOpenEnded: false)
        let (a, b) = (light("lamp-a"), light("lamp-b"))
        let before = try SessionPlanner().plan(session, preset: .calm, devices: [a, b])
        let after = try SessionPlanner().plan(session, preset: .calm, devices: [a])
        let log = before.cues.filter { $0.offset <= .seconds(420) }.map {
            CueRecord(
                cueIndex: $0.index, kind: $0.kind, deviceID: $0.deviceID, planned: $0.offset, actual: $0.offset,
                outcome: .confirmed)
        }
        #expect(log.contains { $0.deviceID == b.id }, "the removed lamp had cues fired")
        let fired = SessionRecovery.firedCues(of: after, log: log)
        #expect(fired == Set(after.cues.filter { $0.offset <= .seconds(420) }.map(\.index)))
        #expect(after.cues.contains { $0.offset > .seconds(420) && $0.kind == .bell(stage: 0, ring: 2) })
    }

    @Test(
        "with the wall clock unknown, a running session saved in the clock's future is over, never resumed; a paused one still resumes"
    )
    func clockUnknown() throws {
        var running = try Self.record(.running)
        running.elapsedAt = Self.start.addingTimeInterval(125)
        let stale = Self.start.addingTimeInterval(-3600)
        #expect(SessionRecovery.clockBehind(running, now: stale))
        #expect(!SessionRecovery.clockBehind(running, now: Self.start.addingTimeInterval(125)))
        func decide(_ record: SessionRecord, unknown: Bool) throws -> SessionRecovery {
            SessionRecovery.decide(
                record, timeline: try Self.timeline(), cueLog: [], otherActive: false, now: stale, clockUnknown: unknown
            )
        }
        #expect(try decide(running, unknown: false) == .resume(.init(elapsed: .seconds(120))))
        #expect(try decide(running, unknown: true) == .interrupt)
        // Its meditation was over (only the end effect was left): completed, at its length.
        running.elapsed = .seconds(600)
        #expect(try decide(running, unknown: true) == .complete(length: .seconds(600)))
        var paused = try Self.record(.paused)
        paused.elapsedAt = Self.start.addingTimeInterval(125)
        #expect(!SessionRecovery.clockBehind(paused, now: stale))
        #expect(try decide(paused, unknown: true) == .resume(.init(elapsed: .seconds(120), paused: true)))
    }
}
