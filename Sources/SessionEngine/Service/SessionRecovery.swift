import Foundation
import TuyaCore

/// What to do at daemon start with a session the store still has as running or paused:
/// resume it when its planned end is still ahead (or it was paused, which stops the
/// clock), else record it as over (interrupted, or completed by the service when only its
/// end effect was left) and apply its end state. The planned end is the
/// start time plus the session's length (or the ending's start plus the end effect's
/// length, when it was being ended): pauses before the restart are not counted, so a
/// session paused and resumed near its end may be taken as over. Pure.
enum SessionRecovery: Hashable, Sendable {
    case resume(SessionRunner.ResumePoint, paused: Bool)
    case interrupt

    static func decide(
        _ record: SessionRecord, timeline: SessionTimeline, cueLog: [CueRecord], otherActive: Bool, now: Date
    ) -> SessionRecovery {
        let plannedEnd: Duration =
            if let ending = record.endingStartedAt {
                ending + (timeline.endingCues.last?.offset ?? .zero)
            } else {
                timeline.totalDuration
            }
        let endDate = record.startedAt.addingTimeInterval(plannedEnd.sessionSeconds)
        guard !otherActive, record.state == .paused || endDate > now else { return .interrupt }
        return .resume(
            SessionRunner.ResumePoint(
                elapsed: record.elapsed, firedCues: Set(cueLog.map(\.cueIndex)),
                endingStartedAt: record.endingStartedAt, captured: record.captured),
            paused: record.state == .paused)
    }
}

extension Duration {
    /// Seconds as a `Double`, for dates and messages.
    public var sessionSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
