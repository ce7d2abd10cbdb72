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
    /// Over, its meditation done (only its end effect was left): recorded `completed`.
    case complete(length: Duration)
    case interrupt

    /// Whether the meditation of a session that ran `ran` was over, and its length (never the
    /// end effect's). A timed one is over at its end unless its ending began before (a stop);
    /// an open-ended one once its ending began. The one rule for a session that ends while
    /// the daemon runs and one found over at the next start.
    static func meditation(of timeline: SessionTimeline, endingStartedAt: Duration?, ran: Duration)
        -> (over: Bool, length: Duration)
    {
        if timeline.session.isOpenEnded { return (endingStartedAt != nil, min(ran, endingStartedAt ?? ran)) }
        let endedEarly = endingStartedAt.map { $0 < timeline.end } ?? false
        return (!endedEarly && ran >= timeline.end, min(ran, endingStartedAt ?? timeline.end))
    }

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
        guard !otherActive, record.state == .paused || endDate > now else {
            let meditation = meditation(of: timeline, endingStartedAt: record.endingStartedAt, ran: record.elapsed)
            return meditation.over ? .complete(length: meditation.length) : .interrupt
        }
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
