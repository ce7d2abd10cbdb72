import Foundation
import Timing
import TuyaCore

extension SessionService {
    /// Starts watching a pause that began at `since` (or stops watching, at a resume: nil): a
    /// session still paused `Settings.maximumPause` after it began is stopped as a second
    /// `stop` would, its end state applied at once. A session paused across a restart counts
    /// from its stored pause (one stored before the pause's time was kept: from now).
    func watchPause(of id: SessionID, since: Date?) {
        tracked[id]?.pauseWatch?.cancel()
        tracked[id]?.pauseWatch = nil
        guard let since, let limit = settings.maximumPause, tracked[id] != nil else { return }
        tracked[id]?.pauses += 1
        let pause = tracked[id]?.pauses ?? 0
        let clock = OffsetClock(self.clock)
        let left = max(.zero, limit - SessionRecovery.wallClockSpan(from: since, to: now()))
        tracked[id]?.pauseWatch = Task { [weak self] in
            do {
                try await clock.sleepUntil(clock.now() + left)
            } catch {
                return
            }
            await self?.pauseOverran(id, pause: pause, limit: limit)
        }
    }

    /// Stops the session if it is still paused by the same pause: checked and stopped in one
    /// call on the runner, so a resume that comes meanwhile wins.
    private func pauseOverran(_ id: SessionID, pause: Int, limit: Duration) async {
        guard activeID == id, !suspended, let session = tracked[id], session.pauses == pause,
            await session.runner.stopIfPaused()
        else { return }
        log(
            .init(
                level: .notice,
                message:
                    "session \(id) was paused for \(limit.roundedText) (timer.max_pause): stopped, its end state applied"
            ))
        applyFinalState(of: session.timeline, captured: await session.runner.capturedStates())
    }
}
