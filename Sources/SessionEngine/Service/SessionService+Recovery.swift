import Foundation
import Timing
import TuyaCore

extension SessionService {
    /// At daemon start: resumes the session that was running or paused when the daemon
    /// stopped, if its planned end is still ahead; marks the others `interrupted` (or
    /// `completed`, when the meditation was over and only its end effect was playing) and
    /// applies their end state (`SessionRecovery`).
    public func recover() async {
        let records: [SessionRecord]
        do {
            records = try await store.activeSessions()
        } catch {
            log(.init(level: .error, message: "cannot read the sessions to recover: \(error)"))
            return
        }
        // A session started by this process (a request that came while the daemon was starting)
        // is not a leftover of the previous one.
        var held: [SessionRecord] = []
        for record in records where !startedHere.contains(record.id) {
            if SessionRecovery.clockBehind(record, now: now()), !settings.wallClockIsSet() {
                held.append(record)
            } else {
                await recoverOrEnd(record, clockUnknown: false)
            }
        }
        if !held.isEmpty { waitForWallClock(held) }
    }

    /// Recovers a leftover session; one that cannot be (its preset is gone) is interrupted.
    func recoverOrEnd(_ record: SessionRecord, clockUnknown: Bool) async {
        do {
            try await recover(record, clockUnknown: clockUnknown)
        } catch {
            log(
                .init(
                    level: .error,
                    message: "session \(record.id) could not be recovered: \(error); marking it interrupted"))
            await markEnded(record, as: .interrupted, elapsed: record.elapsed, timeline: nil)
        }
    }

    /// Saves the running session's elapsed time. The daemon calls it with each health check
    /// (`BridgeServer.Settings.healthInterval`, a minute), so after a crash or a power cut (no
    /// `suspend()`) a session resumes within a minute of where it was, not at its last cue (a
    /// session without bells had only its start).
    public func checkpoint() async {
        guard let id = activeID, let runner = tracked[id]?.runner else { return }
        let status = await runner.status()
        guard status.state == .running, activeID == id else { return }
        // Only the time, only while the row still says running: a pause, the end or a stop
        // written meanwhile stays as written.
        try? await store.checkpoint(id, elapsed: status.elapsed, at: now())
    }

    /// At daemon shutdown: stops playing without ending the session, saves its elapsed
    /// time and cue log, so the next start resumes it.
    public func suspend() async {
        // Leftovers still waiting for the clock stay as stored, for the next start; one being
        // recovered at this moment is let finish first, so it is suspended as any session.
        let waiting = !heldForClock.isEmpty
        heldForClock = []
        let wait = clockWait
        clockWait = nil
        if waiting { wait?.cancel() }
        await wait?.value
        suspended = true
        suspendedID = activeID
        if let id = activeID, let session = tracked[id] { await suspend(id, session) }
        // A session that ended may still be settling its last commands (a restore the device
        // confirms a moment later): their outcomes are written before the daemon stops. Bounded
        // by the controller's confirmation deadline.
        for session in tracked.values where session.endRecorded { await session.consumer?.value }
    }

    /// Stops the active session's runner and saves where it is, or records its end if it ended
    /// as the daemon stopped.
    private func suspend(_ id: SessionID, _ session: Tracked) async {
        var before = await session.runner.status().state
        if !before.isFinal {
            do {
                try await session.runner.stop()
            } catch {
                // Ended meanwhile (its pause ran out as the daemon stopped).
                before = await session.runner.status().state
            }
        }
        if before.isFinal {
            // It ended as the daemon stopped (a stop, its last cue, its pause running out), and
            // the event that records it is no longer handled: recorded here, never resumed.
            do {
                try await ended(id, state: before, elapsed: await session.runner.status().elapsed)
            } catch {
                log(.init(level: .error, message: "session \(id): could not record its end: \(error)"))
            }
            return
        }
        let cueLog = await session.runner.cueLog()
        let elapsed = await session.runner.status().elapsed
        let savedAt = now()
        do {
            for cue in cueLog { try await store.record(cue, in: id) }
            // A paused session keeps when its pause began: the pause limit counts from it.
            try await store.update(
                id, state: before == .paused ? .paused : .running, elapsed: elapsed,
                elapsedAt: before == .paused ? session.pausedSince ?? savedAt : savedAt,
                endingStartedAt: session.record.endingStartedAt, endedAt: nil)
            log(
                .init(
                    level: .info,
                    message: "session \(id) suspended at \(elapsed.roundedText); it resumes at the next start"))
        } catch {
            log(.init(level: .error, message: "could not save session \(id) for the next start: \(error)"))
        }
        session.consumer?.cancel()
        session.pauseWatch?.cancel()
        tracked[id] = nil
        activeID = nil
        // No `activeChange(false)`: the session resumes at the next start, so the alerts it
        // holds stay held rather than going out as the daemon stops (the next start begins
        // with none held, and a session not resumed then holds none).
    }

    /// A leftover session's timeline, planned as `start` plans (each device's frame gap), so
    /// the cues are the same ones; with its devices still paired.
    func plannedTimeline(of record: SessionRecord) async throws -> SessionTimeline {
        try await plannedSession(of: record).timeline
    }

    private func plannedSession(of record: SessionRecord) async throws -> (
        timeline: SessionTimeline, devices: [TuyaDevice]
    ) {
        guard let preset = preset(named: record.presetName) else {
            throw SessionServiceError.unknownPreset(record.presetName, known: settings.presets.map(\.name))
        }
        let devices = await controller.devices().filter { record.devices.contains($0.id) }
        return (try planner(for: devices).plan(record.session, preset: preset, devices: devices), devices)
    }

    private func recover(_ record: SessionRecord, clockUnknown: Bool) async throws {
        let (timeline, devices) = try await plannedSession(of: record)
        let cueLog = try await store.cueLog(of: record.id)
        switch SessionRecovery.decide(
            record, timeline: timeline, cueLog: cueLog, otherActive: activeID != nil || starting, now: now(),
            clockUnknown: clockUnknown)
        {
        case .complete(let length):
            await markEnded(record, as: .completed, elapsed: length, timeline: timeline)
        case .interrupt where clockUnknown:
            await markEnded(
                record, as: .interrupted, elapsed: record.elapsed, timeline: timeline,
                interruption:
                    "was interrupted by a restart; the wall clock was not set within \(settings.wallClockWait.roundedText), so how long the daemon was down is not known"
            )
        case .interrupt:
            await markEnded(record, as: .interrupted, elapsed: record.elapsed, timeline: timeline)
        case .resume(let point):
            let renumbered = SessionRecovery.renumbered(cueLog, to: timeline).log
            if renumbered != cueLog { try await store.replaceCueLog(renumbered, of: record.id) }
            var resumed = record
            if !point.paused {
                // Where it is now: a crash right after this resumes it from here again.
                resumed.elapsed = point.elapsed
                resumed.elapsedAt = now()
            }
            let missed = point.missedSince.map {
                " (\((point.elapsed - $0).roundedText) went by while the daemon was stopped)"
            }
            log(
                .init(
                    level: .info,
                    message:
                        "resuming session \(record.id) (\(record.presetName))\(point.paused ? " paused" : "") at \(point.elapsed.roundedText)\(missed ?? ""); \(cueLog.count) cues already fired"
                ))
            _ = try await launch(resumed, timeline: timeline, names: Self.names(of: devices), resuming: point)
        }
    }

    /// Records a session found over at the next start and applies its end state: `completed`
    /// (with the meditation's length, `elapsed`) when the meditation was over and only its end
    /// effect was left, which earns what it would have a moment later; else `interrupted`.
    func markEnded(
        _ record: SessionRecord, as state: SessionState, elapsed: Duration, timeline: SessionTimeline?,
        interruption: String = "was interrupted by a restart past its planned end"
    ) async {
        do {
            try await store.update(
                record.id, state: state, elapsed: elapsed, endingStartedAt: record.endingStartedAt, endedAt: now())
        } catch {
            log(.init(level: .error, message: "could not mark session \(record.id) \(state.rawValue): \(error)"))
        }
        let why =
            state == .completed
            ? "ended during its end effect while the daemon was stopped; recorded as completed after \(elapsed.roundedText)"
            : interruption
        log(
            .init(
                level: .notice,
                message: "session \(record.id) \(why)\(timeline == nil ? "" : "; applying its end state")"))
        if let timeline { applyFinalState(of: timeline, captured: record.captured) }
        if state == .completed, settings.awardsBadges { try? await awardBadges() }
        await tell(.ended(record.id, preset: record.presetName, state: state, elapsed: elapsed))
    }
}
