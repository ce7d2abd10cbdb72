import SessionEngine
import Testing
import TuyaCore

// The cue log's words: what the store writes and reads back, and what `session_cue` carries.
@Suite("cue kinds and outcomes as the cue log writes them")
struct CueWordsTests {
    @Test(
        "every cue kind reads back as itself",
        arguments: [
            SessionCue.Kind.start, .stageStart(stage: 2), .bell(stage: 0, ring: 1), .bellReturn(stage: 1, ring: 3),
            .end, .rampStep(step: 3, of: 10), .endEffect, .restore,
        ])
    func kindRoundTrip(kind: SessionCue.Kind) {
        #expect(SessionCue.Kind(rawValue: kind.rawValue) == kind)
    }

    @Test("the words are the documented ones")
    func words() {
        #expect(SessionCue.Kind.bell(stage: 0, ring: 1).rawValue == "bell:0:1")
        #expect(SessionCue.Kind.rampStep(step: 3, of: 10).rawValue == "ramp_step:3:10")
        #expect(CueOutcome.skipped(.unavailable(.offline)).rawValue == "skipped:unavailable:offline")
        #expect(CueOutcome.skipped(.notApplied("no answer: 5 s")).rawValue == "skipped:not_applied:no answer: 5 s")
    }

    @Test(
        "damaged kinds are refused",
        arguments: ["", "bell", "bell:x", "bell:0", "bell:0:1:2", "stage_start:-1", "start:1", "ring:0:1", "bell::1"])
    func damagedKinds(text: String) {
        #expect(SessionCue.Kind(rawValue: text) == nil)
    }

    @Test(
        "every outcome reads back as itself",
        arguments: [
            CueOutcome.marked, .sent, .confirmed, .cancelled, .skipped(.unknownDevice), .skipped(.nothingCaptured),
            .skipped(.unavailable(.authFailed)), .skipped(.notApplied("desk lamp did not confirm in 5 s")),
        ])
    func outcomeRoundTrip(outcome: CueOutcome) {
        #expect(CueOutcome(rawValue: outcome.rawValue) == outcome)
    }

    @Test("damaged outcomes are refused", arguments: ["", "skipped", "skipped:unavailable:lost", "done", "Marked"])
    func damagedOutcomes(text: String) {
        #expect(CueOutcome(rawValue: text) == nil)
    }
}
