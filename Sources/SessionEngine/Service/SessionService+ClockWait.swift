import Foundation
import Timing

extension SessionService {
    /// Recovers `held` (running sessions the wall clock reads as saved in its future) once the
    /// clock is set, so the time the daemon was down is counted from a true clock: a lamp does
    /// not play bells half an hour late after a power cut. Rechecked every 5 seconds on the
    /// monotonic clock; after `Settings.wallClockWait` they are recovered with the clock
    /// unknown (`SessionRecovery.decide`: over, never resumed at a guess). Returns at once.
    ///
    /// Meanwhile maintenance alerts hold as for a running session; a `start` ends the held
    /// sessions (the new one takes the devices), a `stop` ends them with their end state, and
    /// `suspend()` leaves them stored as they are for the next start.
    func waitForWallClock(_ held: [SessionRecord]) {
        clockWait?.cancel()
        heldForClock = held
        activeChange(true)
        let ids = held.map(\.id.rawValue).joined(separator: ", ")
        log(
            .init(
                level: .notice,
                message:
                    "the wall clock reads before session \(ids) was last saved: not set since the machine started (no real-time clock, no NTP answer yet); waiting up to \(settings.wallClockWait.roundedText) for it before resuming"
            ))
        let clock = OffsetClock(self.clock)
        let deadline = clock.now() + settings.wallClockWait
        let isSet = settings.wallClockIsSet
        clockWait = Task { [weak self] in
            while !isSet() {
                let now = clock.now()
                guard now < deadline else { break }
                do {
                    try await clock.sleepUntil(min(deadline, now + .seconds(5)))
                } catch {
                    return
                }
            }
            await self?.recoverHeld(clockUnknown: !isSet())
        }
    }

    private func recoverHeld(clockUnknown: Bool) async {
        guard !Task.isCancelled, !heldForClock.isEmpty else { return }
        let held = heldForClock
        heldForClock = []
        recoveringHeld = true
        defer { recoveringHeld = false }
        if !clockUnknown {
            log(.init(level: .info, message: "the wall clock is set; recovering the sessions that waited for it"))
        }
        for record in held { await recoverOrEnd(record, clockUnknown: clockUnknown) }
        if activeID == nil { activeChange(false) }
    }

    /// Ends the sessions waiting for the wall clock, for a `start` (`as: .interrupted`, their
    /// end state not applied: the new session takes the devices) or a `stop` (`.stopped`, their
    /// end state applied). Returns the status of the last one ended, nil when none waited.
    @discardableResult
    func endHeldForClock(as state: SessionState) async -> SessionStatus? {
        guard !heldForClock.isEmpty else { return nil }
        let held = heldForClock
        heldForClock = []
        clockWait?.cancel()
        clockWait = nil
        var status: SessionStatus?
        for record in held {
            let stopping = state == .stopped
            let timeline = try? await plannedTimeline(of: record)
            // A sit whose meditation was over (only its end effect was left) is completed.
            let meditation = timeline.map {
                SessionRecovery.meditation(of: $0, endingStartedAt: record.endingStartedAt, ran: record.elapsed)
            }
            let ended: (state: SessionState, elapsed: Duration) =
                if let meditation, meditation.over { (.completed, meditation.length) } else { (state, record.elapsed) }
            await markEnded(
                record, as: ended.state, elapsed: ended.elapsed, timeline: stopping ? timeline : nil,
                interruption: stopping
                    ? "was stopped while it waited for the wall clock"
                    : "was interrupted: a new session started while it waited for the wall clock")
            status = SessionStatus(
                id: record.id, presetName: record.presetName, state: ended.state, phase: .finished,
                elapsed: ended.elapsed, remaining: nil, nextBell: nil, firedCues: 0, skippedCues: 0, totalCues: 0,
                devices: [:])
        }
        if activeID == nil, !starting { activeChange(false) }
        return status
    }
}
