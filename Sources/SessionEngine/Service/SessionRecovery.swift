import Foundation
import TuyaCore

/// What to do at daemon start with a session the store still has as running or paused:
/// resume it when its planned end is still ahead (or it was paused, which stops the
/// clock), else record it as over (interrupted, or completed by the service when only its
/// end effect was left) and apply its end state. Pure.
///
/// Where a running session is now: its saved elapsed time plus the time since it was saved,
/// so the time the daemon was down counts as practice (the person kept sitting: "until
/// 07:30" still ends at 07:30) and pauses before the restart do not. Cues that fell due
/// meanwhile are not played late, but each device gets the last one it missed
/// (`ResumePoint.missedSince`), so a lamp is not left in a bell's dip. A record saved before
/// the time of its elapsed was kept resumes where it was saved, over once its start plus its
/// length has passed.
///
/// Cues already fired are recognised by what they were (kind and device), not by their
/// place in the plan: a device removed while the daemon was down changes every later place.
enum SessionRecovery: Hashable, Sendable {
    case resume(SessionRunner.ResumePoint)
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

    /// With `clockUnknown` (it waited for the wall clock, `clockBehind`, and the clock was not
    /// set in time), how long the daemon was down is not known: a running session is over
    /// (interrupted, or completed if its meditation was), never resumed at a guess.
    static func decide(
        _ record: SessionRecord, timeline: SessionTimeline, cueLog: [CueRecord], otherActive: Bool, now: Date,
        clockUnknown: Bool = false
    ) -> SessionRecovery {
        let plannedEnd: Duration =
            if let ending = record.endingStartedAt {
                ending + (timeline.endingCues.last?.offset ?? .zero)
            } else {
                timeline.totalDuration
            }
        let paused = record.state == .paused
        var position = record.elapsed
        let ahead: Bool
        if paused {
            ahead = true
        } else if let saved = record.elapsedAt {
            position += wallClockSpan(from: saved, to: now)
            ahead = position < plannedEnd
        } else {
            ahead = record.startedAt.addingTimeInterval(plannedEnd.sessionSeconds) > now
        }
        guard !otherActive, ahead, paused || !clockUnknown else {
            let meditation = meditation(of: timeline, endingStartedAt: record.endingStartedAt, ran: record.elapsed)
            return meditation.over ? .complete(length: meditation.length) : .interrupt
        }
        return .resume(
            SessionRunner.ResumePoint(
                elapsed: position, firedCues: firedCues(of: timeline, log: cueLog),
                endingStartedAt: record.endingStartedAt, captured: record.captured,
                missedSince: position > record.elapsed ? record.elapsed : nil, paused: paused))
    }

    /// Whether the wall clock reads earlier than a running session's last save: it was set
    /// back, or it is not set yet (a gateway without a real-time clock after a power cut). Its
    /// position then cannot be told from the clock.
    static func clockBehind(_ record: SessionRecord, now: Date) -> Bool {
        record.state != .paused && now < (record.elapsedAt ?? record.startedAt)
    }

    /// The time from `earlier` to `now` on the wall clock: none when the clock went back (or the
    /// stored time is not a number), at most a year, so a hand-edited time cannot trap the
    /// conversion; any session is over by then.
    public static func wallClockSpan(from earlier: Date, to now: Date) -> Duration {
        let seconds = now.timeIntervalSince(earlier)
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .seconds(min(seconds, 366 * 86400))
    }

    /// The cues of `timeline` the log says fired, matched by kind and device (each pair is one
    /// cue of a plan; counted, should a plan ever hold two alike).
    static func firedCues(of timeline: SessionTimeline, log: [CueRecord]) -> Set<Int> {
        renumbered(log, to: timeline).fired
    }

    /// The log in the numbering of `timeline`, which may differ from the one it was written in
    /// (a device removed while the daemon was down): a record that matches a cue takes its
    /// index; the others (the removed device's) go after the plan's last, so no cue fired from
    /// now on overwrites them. With the indices of the cues that fired.
    static func renumbered(_ log: [CueRecord], to timeline: SessionTimeline) -> (log: [CueRecord], fired: Set<Int>) {
        struct Key: Hashable {
            var kind: SessionCue.Kind
            var device: DeviceID?
        }
        var cues: [Key: [Int]] = [:]
        for cue in timeline.cues.sorted(by: { $0.index < $1.index }) {
            cues[Key(kind: cue.kind, device: cue.deviceID), default: []].append(cue.index)
        }
        var next = (timeline.cues.map(\.index).max() ?? -1) + 1
        var fired: Set<Int> = []
        let renumbered = log.sorted { $0.cueIndex < $1.cueIndex }.map { record in
            var record = record
            let key = Key(kind: record.kind, device: record.deviceID)
            if let index = cues[key]?.first {
                cues[key]?.removeFirst()
                record.cueIndex = index
                fired.insert(index)
            } else {
                record.cueIndex = next
                next += 1
            }
            return record
        }
        return (renumbered, fired)
    }
}

extension Duration {
    /// Seconds as a `Double`, for dates and messages.
    public var sessionSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
