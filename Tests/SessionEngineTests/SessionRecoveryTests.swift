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

    @Test("a running session before its planned end resumes at its elapsed time, skipping the logged cues")
    func resumesBeforeEnd() throws {
        let log = [
            CueRecord(cueIndex: 0, kind: .start, deviceID: nil, planned: .zero, actual: .zero, outcome: .marked)
        ]
        let decision = SessionRecovery.decide(
            try Self.record(.running), timeline: try Self.timeline(), cueLog: log, otherActive: false,
            now: Self.start.addingTimeInterval(130))
        #expect(decision == .resume(.init(elapsed: .seconds(120), firedCues: [0]), paused: false))
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
                == .resume(.init(elapsed: .seconds(120)), paused: true))
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
}
