import Timing
import TuyaCore

extension SessionService {
    /// Plays `record` with a new runner, following its events, and makes it the active session.
    func launch(
        _ record: SessionRecord, timeline: SessionTimeline, names: [DeviceID: String],
        resuming point: SessionRunner.ResumePoint?
    ) async throws(SessionServiceError) -> SessionStatus {
        let runner = SessionRunner(id: record.id, timeline: timeline, controller: controller, clock: clock)
        let events = await runner.events()
        let id = record.id
        var session = Tracked(record: record, runner: runner, timeline: timeline, names: names)
        session.resumed = point != nil
        if point == nil { session.startedOnClock = clockTime() }
        if point?.paused == true { session.pausedSince = record.elapsedAt }
        session.consumer = Task { [weak self] in
            for await event in events { await self?.handle(event, of: id) }
            await self?.eventsEnded(id)
        }
        tracked[id] = session
        activeID = id
        suspended = false
        suspendedID = nil
        activeChange(true)
        do {
            try await runner.start(resuming: point)
        } catch {
            session.consumer?.cancel()
            tracked[id] = nil
            activeID = nil
            activeChange(false)
            try? await store.update(id, state: .interrupted, elapsed: .zero, endingStartedAt: nil, endedAt: now())
            throw .invalid(error)
        }
        return await runner.status()
    }

    private func handle(_ event: SessionEvent, of id: SessionID) async {
        // After `suspend()` only the suspended session's events go unrecorded (it resumes at the
        // next start); one that ended still records how its last commands settled.
        guard let session = tracked[id], id != suspendedID || session.endRecorded else { return }
        do {
            switch event {
            case .started(let status, let captured):
                tracked[id]?.record.captured = captured
                if let record = tracked[id]?.record { try await store.save(record) }
                let length = session.timeline.session.isOpenEnded ? nil : session.timeline.end
                await tell(
                    .started(
                        status, devices: session.record.devices, names: session.names, resumed: session.resumed,
                        length: length))
                await announceStatus(of: id)
            case .phaseChanged:
                await announceStatus(of: id)
            case .cueFired(let cue):
                try await store.record(cue, in: id)
                try await store.update(
                    id, state: .running, elapsed: cue.actual, elapsedAt: now(),
                    endingStartedAt: tracked[id]?.record.endingStartedAt, endedAt: nil)
                await tell(.cue(cue, session: id, names: session.names))
                await announceStatus(of: id)
            case .cueSettled(let cue):
                try await store.record(cue, in: id)
                // A cue fired as sent that did not take is said as loudly as it was sent.
                if cue.outcome.isSkipped {
                    let device = cue.deviceID.map { session.names[$0] ?? $0.rawValue } ?? "-"
                    log(.init(level: .notice, message: "session \(id): \(cue.kind) \(device) \(cue.outcome)"))
                    await tell(.cue(cue, session: id, names: session.names))
                    await announceStatus(of: id)
                }
            case .paused(let elapsed), .resumed(let elapsed):
                let paused = event == .paused(elapsed: elapsed)
                // A pause carried across a restart keeps its start; a new one starts now.
                let since = paused ? tracked[id]?.pausedSince ?? now() : nil
                tracked[id]?.pausedSince = since
                watchPause(of: id, since: since)
                try await pausedOrResumed(id, paused: paused, elapsed: elapsed)
            case .ended(let state, let elapsed):
                try await ended(id, state: state, elapsed: elapsed)
            }
        } catch {
            log(.init(level: .error, message: "session \(id): could not record \(event): \(error)"))
        }
    }

    private func pausedOrResumed(_ id: SessionID, paused: Bool, elapsed: Duration) async throws {
        try await store.update(
            id, state: paused ? .paused : .running, elapsed: elapsed, elapsedAt: tracked[id]?.pausedSince ?? now(),
            endingStartedAt: tracked[id]?.record.endingStartedAt, endedAt: nil)
        await tell(paused ? .paused(id, elapsed: elapsed) : .resumed(id, elapsed: elapsed))
        await announceStatus(of: id)
    }

    /// The meditation's end decides: a timed session stopped before it ends `stopped`; one
    /// stopped during its end effect (the meditation over) `completed`; an open-ended one,
    /// which only ends by hand, `completed` whether or not its end effect played. The length
    /// recorded is the meditation's, never the end effect's. Badges go out before the end, so
    /// whoever reacts to it reads a history that has them.
    func ended(_ id: SessionID, state: SessionState, elapsed ran: Duration) async throws {
        guard let session = tracked[id], !session.endRecorded else { return }
        tracked[id]?.endRecorded = true
        session.pauseWatch?.cancel()
        tracked[id]?.pauseWatch = nil
        let meditation = SessionRecovery.meditation(
            of: session.timeline, endingStartedAt: session.record.endingStartedAt, ran: ran)
        let elapsed = meditation.length
        let final: SessionState
        if state == .completed || state == .stopped {
            // An open-ended sit ends by hand, however (its end effect played, skipped, or
            // Ctrl-C in the foreground timer): that is how it completes.
            final = session.timeline.session.isOpenEnded || meditation.over ? .completed : .stopped
        } else {
            final = state
        }
        if activeID == id {
            activeID = nil
            activeChange(false)
        }
        try await correctStart(of: session)
        try await store.update(
            id, state: final, elapsed: elapsed, endingStartedAt: session.record.endingStartedAt, endedAt: now())
        log(.init(level: .info, message: "session \(id) \(final.rawValue) after \(elapsed.roundedText)"))
        if final == .completed, settings.awardsBadges { try await awardBadges() }
        await tell(.ended(id, preset: session.record.presetName, state: final, elapsed: elapsed))
        if activeID == nil { await tell(.status(nil, names: [:])) }
    }

    /// A session started before the wall clock stepped (NTP setting a Pi's clock after a boot
    /// at 1970, or at its last shutdown) has its start stored in the old frame: moved to the
    /// time the monotonic clock says it began, so history counts it on its real day.
    private func correctStart(of session: Tracked) async throws {
        guard let startedOnClock = session.startedOnClock else { return }
        let startedAt = now().addingTimeInterval(-(clockTime() - startedOnClock).sessionSeconds)
        guard abs(startedAt.timeIntervalSince(session.record.startedAt)) > 60 else { return }
        var record = session.record
        record.startedAt = startedAt
        try await store.save(record)
        log(
            .init(
                level: .notice,
                message:
                    "session \(record.id): the wall clock moved while it ran; its start is recorded as \(startedAt.formatted(.iso8601))"
            ))
    }

    /// Totals and streaks over every completed session, as of now.
    func completedHistory() async throws -> SessionHistory {
        SessionHistory(sessions: try await store.completedSummaries(), timeZone: settings.timeZone, now: now())
    }

    func awardBadges() async throws {
        let history = try await completedHistory()
        let new = history.newBadges(alreadyEarned: try await store.earnedBadges())
        guard !new.isEmpty else { return }
        try await store.saveBadges(new, earnedAt: now())
        for badge in new { await tell(.badgeEarned(badge)) }
    }

    private func eventsEnded(_ id: SessionID) {
        guard tracked[id] != nil, activeID != id else { return }
        tracked[id] = nil
    }

    private func announceStatus(of id: SessionID) async {
        guard activeID == id, let session = tracked[id] else { return }
        await tell(.status(await session.runner.status(), names: session.names))
    }

    /// Sends each device its end state, without waiting: an offline device keeps it as its
    /// desired state and catches up when it returns.
    func applyFinalState(of timeline: SessionTimeline, captured: [DeviceID: DeviceState]) {
        let commands = SessionFinalState.commands(of: timeline, captured: captured)
        let controller = controller
        let log = log
        for (device, command) in commands.sorted(by: { $0.key < $1.key }) {
            Task {
                do {
                    try await controller.send(await controller.fitted(command, to: device).command, to: device)
                } catch {
                    log(.init(level: .notice, message: "end state for \(device) not confirmed yet: \(error)"))
                }
            }
        }
    }
}
