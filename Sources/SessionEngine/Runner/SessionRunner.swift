import Timing
import TuyaCore

/// Plays a `SessionTimeline` on an injected clock, driving devices only through
/// `TuyaControllerProtocol`.
///
/// - Each cue fires at an absolute deadline, the session's start instant plus the cue's
///   offset, so lateness never accumulates. Pause and resume move the start instant by
///   the paused time, which shifts every remaining deadline.
/// - Every scheduled cue carries the session id and the runner's generation; pause,
///   resume, finish and stop bump the generation, and a cue is checked against it after
///   every suspension, so nothing fires after `stop()` however the clock moves.
/// - A device that is not online does not stop the session: its cue is logged as
///   skipped, its command still goes to the controller so the device's desired state
///   catches up when it returns.
/// - Commands to one device go out one at a time in cue order; cues that fire while the
///   previous command waits for its confirmation are merged into one (newest field
///   wins), as the controller's own queue would coalesce them.
public actor SessionRunner {
    private struct ScheduledCue: Sendable {
        let sessionID: SessionID
        let generation: Int
        let cue: SessionCue
    }

    /// Commands waiting for a device's previous command to settle, merged into one.
    private struct PendingSend: Sendable {
        var command: DeviceCommand
        /// The cues whose outcome this send decides (not those already logged as skipped).
        var cues: [Int]
    }

    public nonisolated let id: SessionID
    public nonisolated let timeline: SessionTimeline
    private let controller: any TuyaControllerProtocol
    private let clock: OffsetClock

    private var state: SessionState = .scheduled
    private var starting = false
    private var generation = 0
    /// The clock time at which the session's elapsed time was zero.
    private var origin: Duration = .zero
    /// Elapsed time frozen while not running.
    private var frozenElapsed: Duration = .zero
    /// Elapsed time when the session was ended early.
    private var endingStart: Duration?
    private var phase: SessionPhase?
    private var queue: [ScheduledCue] = []
    private var records: [Int: CueRecord] = [:]
    private var captured: [DeviceID: DeviceState] = [:]
    private var loop: Task<Void, Never>?
    private var sending: Set<DeviceID> = []
    private var waiting: [DeviceID: PendingSend] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    /// Event subscriptions (SessionRunner+Events.swift).
    var subscribers: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
    var nextSubscriber = 0

    /// - Parameter clock: `ContinuousClock()` in production, a manual clock in tests.
    public init(
        id: SessionID = .random(), timeline: SessionTimeline, controller: any TuyaControllerProtocol,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.id = id
        self.timeline = timeline
        self.controller = controller
        self.clock = OffsetClock(clock)
    }

    // MARK: - Control

    /// Captures the state of the devices a restore cue needs, then starts the clock.
    /// With a resume point, elapsed time continues from it and no cue fires twice; a point
    /// that was paused starts paused (`started`, then `paused`), its clock stopped.
    public func start(resuming point: ResumePoint? = nil) async throws(SessionError) {
        guard state == .scheduled, !starting else { throw .invalidTransition(action: "start", state: state) }
        starting = true
        captured = point?.captured ?? [:]
        for device in timeline.devicesToCapture where captured[device] == nil {
            if let confirmed = await controller.confirmedState(of: device) { captured[device] = confirmed }
        }
        guard state == .scheduled else { return }  // stopped while capturing
        let elapsed = point?.elapsed ?? .zero
        origin = clock.now() - elapsed
        var cues = timeline.cues
        if let ending = point?.endingStartedAt {
            endingStart = ending
            cues = timeline.cues.filter { $0.offset < ending && !$0.kind.isEnding } + shiftedEnding(to: ending)
        }
        let fired = point?.firedCues ?? []
        let caughtUp = point?.catchUp(cues) ?? []
        state = .running
        generation += 1
        queue = cues.filter { ($0.offset >= elapsed || caughtUp.contains($0.index)) && !fired.contains($0.index) }
            .map(stamp)
        if point?.paused == true {
            frozenElapsed = elapsed
            state = .paused
        }
        emit(.started(status(), captured: captured))
        enter(currentPhase(at: elapsed))
        if state == .paused {
            emit(.paused(elapsed: elapsed))
        } else {
            launchLoop()
        }
    }

    public func pause() throws(SessionError) {
        guard state == .running else { throw .invalidTransition(action: "pause", state: state) }
        frozenElapsed = elapsed
        state = .paused
        generation += 1
        loop?.cancel()
        loop = nil
        emit(.paused(elapsed: frozenElapsed))
    }

    /// Continues from the paused elapsed time: every remaining deadline moves by the pause.
    public func resume() throws(SessionError) {
        guard state == .paused else { throw .invalidTransition(action: "resume", state: state) }
        origin = clock.now() - frozenElapsed
        state = .running
        generation += 1
        queue = queue.map { stamp($0.cue) }
        emit(.resumed(elapsed: frozenElapsed))
        launchLoop()
    }

    /// Ends the meditation now and plays the end effect from here: how an open-ended
    /// session ends, or a timed one ends early. Remaining bells are dropped. Does nothing
    /// once the end has begun.
    public func finish() throws(SessionError) {
        guard state == .running || state == .paused else { throw .invalidTransition(action: "finish", state: state) }
        let now = elapsed
        guard endingStart == nil, now < timeline.end else { return }
        endingStart = now
        generation += 1
        queue = shiftedEnding(to: now).map(stamp)
        if state == .running { launchLoop() }
    }

    /// Cancels everything pending, without the end effect. No cue fires after this, and
    /// commands still waiting behind a device's previous one are dropped.
    public func stop() throws(SessionError) {
        guard !state.isFinal else { throw .invalidTransition(action: "stop", state: state) }
        frozenElapsed = state == .scheduled ? .zero : elapsed
        state = .stopped
        generation += 1
        loop?.cancel()
        loop = nil
        queue.removeAll()
        for pending in waiting.values {
            for index in pending.cues { settle(index, as: .cancelled) }
        }
        waiting.removeAll()
        enter(.finished)
        emit(.ended(.stopped, elapsed: frozenElapsed))
        finishEventsIfDone()
    }

    /// `stop()` if the session is paused, in one step: false, changing nothing, when it is not
    /// (resumed or ended meanwhile).
    public func stopIfPaused() -> Bool {
        guard state == .paused else { return false }
        do { try stop() } catch { return false }
        return true
    }

    // MARK: - Snapshots

    public func status() -> SessionStatus {
        let elapsed = self.elapsed
        let remaining: Duration? =
            if let endingStart { max(.zero, endingStart - elapsed) } else if timeline.session.isOpenEnded { nil } else {
                max(.zero, timeline.end - elapsed)
            }
        let nextBell = queue.first { if case .bell = $0.cue.kind { $0.cue.deviceID == nil } else { false } }
        // Every device the session drives, with no cue fired yet too (`timer stop --json` right after a start).
        var devices = Dictionary(uniqueKeysWithValues: timeline.deviceIDs.map { ($0, DeviceOutcome()) })
        for record in records.values {
            guard let device = record.deviceID else { continue }
            var outcome = devices[device] ?? DeviceOutcome()
            switch record.outcome {
            case .sent: outcome.sent += 1
            case .confirmed:
                outcome.sent += 1
                outcome.confirmed += 1
            case .skipped: outcome.skipped += 1
            case .marked, .cancelled: break
            }
            devices[device] = outcome
        }
        return SessionStatus(
            id: id, presetName: timeline.presetName, state: state, phase: phase ?? currentPhase(at: elapsed),
            elapsed: elapsed, remaining: remaining, nextBell: nextBell.map { max(.zero, $0.cue.offset - elapsed) },
            firedCues: records.count, skippedCues: records.values.filter(\.outcome.isSkipped).count,
            totalCues: records.count + queue.count, devices: devices)
    }

    /// Every cue that fired so far, in index order, with its latest outcome.
    public func cueLog() -> [CueRecord] { records.values.sorted { $0.cueIndex < $1.cueIndex } }

    /// The states captured at the start for restore cues.
    public func capturedStates() -> [DeviceID: DeviceState] { captured }

    // MARK: - Firing

    private var elapsed: Duration { state == .running ? clock.now() - origin : frozenElapsed }

    var isDone: Bool { state.isFinal && !records.values.contains { $0.outcome == .sent } }

    private func stamp(_ cue: SessionCue) -> ScheduledCue {
        ScheduledCue(sessionID: id, generation: generation, cue: cue)
    }

    private func shiftedEnding(to offset: Duration) -> [SessionCue] {
        timeline.endingCues.map { cue in
            var shifted = cue
            shifted.offset += offset
            return shifted
        }
    }

    private func launchLoop() {
        loop?.cancel()
        let generation = self.generation
        loop = Task { await self.run(generation: generation) }
    }

    private func run(generation: Int) async {
        while generation == self.generation, state == .running {
            guard let next = queue.first else {
                complete()
                return
            }
            do {
                try await clock.sleepUntil(origin + next.cue.offset)
            } catch {
                return
            }
            await fire(next)
        }
    }

    private func isCurrent(_ scheduled: ScheduledCue) -> Bool {
        scheduled.sessionID == id && scheduled.generation == generation && state == .running
            && queue.first?.cue.index == scheduled.cue.index
    }

    private func fire(_ scheduled: ScheduledCue) async {
        guard isCurrent(scheduled) else { return }
        let cue = scheduled.cue
        var status: ConnectionStatus?
        if let device = cue.deviceID, cue.action != .none {
            status = await controller.status(of: device)
            // Paused or stopped while asking: this cue has not fired.
            guard isCurrent(scheduled) else { return }
        }
        queue.removeFirst()
        var record = CueRecord(
            cueIndex: cue.index, kind: cue.kind, deviceID: cue.deviceID, planned: cue.offset, actual: elapsed,
            outcome: .marked)
        switch (cue.action, cue.deviceID) {
        case (.send(let command), let device?):
            record.outcome = deliver(command, cue: cue.index, to: device, status: status)
        case (.restoreCapturedState, let device?):
            if let command = captured[device]?.restoringCommand {
                record.outcome = deliver(command, cue: cue.index, to: device, status: status)
            } else {
                record.outcome = .skipped(.nothingCaptured)
            }
        default:
            record.outcome = .marked
        }
        records[cue.index] = record
        emit(.cueFired(record))
        switch cue.kind {
        case .stageStart(let stage): enter(.stage(index: stage, name: timeline.session.stages[stage].name))
        case .end: enter(.ending)
        default: break
        }
    }

    /// Hands the command to the device's send lane and says how the cue is logged.
    private func deliver(_ command: DeviceCommand, cue: Int, to device: DeviceID, status: ConnectionStatus?)
        -> CueOutcome
    {
        guard let status else { return .skipped(.unknownDevice) }
        let online = status.availability == .online
        enqueue(command, tracking: online ? cue : nil, to: device)
        return online ? .sent : .skipped(.unavailable(status.availability))
    }

    private func complete() {
        guard state == .running else { return }
        frozenElapsed = elapsed
        state = .completed
        generation += 1
        loop = nil
        enter(.finished)
        emit(.ended(.completed, elapsed: frozenElapsed))
        finishEventsIfDone()
    }

    private func currentPhase(at elapsed: Duration) -> SessionPhase {
        if state.isFinal { return .finished }
        if let endingStart, elapsed >= endingStart { return .ending }
        return timeline.session.phase(at: elapsed)
    }

    private func enter(_ phase: SessionPhase) {
        guard phase != self.phase else { return }
        self.phase = phase
        emit(.phaseChanged(phase))
    }

    // MARK: - Sending

    private func enqueue(_ command: DeviceCommand, tracking cue: Int?, to device: DeviceID) {
        guard sending.contains(device) else {
            startSending(PendingSend(command: command, cues: cue.map { [$0] } ?? []), to: device)
            return
        }
        if var pending = waiting[device] {
            pending.command = pending.command.merging(command)
            if let cue { pending.cues.append(cue) }
            waiting[device] = pending
        } else {
            waiting[device] = PendingSend(command: command, cues: cue.map { [$0] } ?? [])
        }
    }

    private func startSending(_ pending: PendingSend, to device: DeviceID) {
        sending.insert(device)
        let controller = controller
        Task {
            let failure: String?
            do {
                // A preset value beyond what the device can show goes as the nearest it can.
                let fitted = await controller.fitted(pending.command, to: device)
                try await controller.send(fitted.command, to: device)
                failure = nil
            } catch {
                // ControllerError's description names the device and the fix; no secrets.
                failure = String(describing: error)
            }
            self.sent(pending, to: device, failure: failure)
        }
    }

    private func sent(_ pending: PendingSend, to device: DeviceID, failure: String?) {
        for index in pending.cues { settle(index, as: failure.map { .skipped(.notApplied($0)) } ?? .confirmed) }
        if let next = waiting.removeValue(forKey: device) {
            startSending(next, to: device)
        } else {
            sending.remove(device)
        }
        if sending.isEmpty {
            for waiter in idleWaiters { waiter.resume() }
            idleWaiters.removeAll()
        }
        finishEventsIfDone()
    }

    /// Returns once no command is on its way to a device. For tests, which move a manual
    /// clock only after the commands of the cues that just fired have reached the fake.
    func waitUntilSendsSettle() async {
        guard !sending.isEmpty else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Returns once the session has completed or stopped.
    func waitUntilEnded() async {
        guard !state.isFinal else { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    private func settle(_ index: Int, as outcome: CueOutcome) {
        guard var record = records[index], record.outcome == .sent else { return }
        record.outcome = outcome
        records[index] = record
        emit(.cueSettled(record))
    }

    // MARK: - Events

    private func finishEventsIfDone() {
        if state.isFinal {
            for waiter in endWaiters { waiter.resume() }
            endWaiters.removeAll()
        }
        guard isDone else { return }
        for subscriber in subscribers.values { subscriber.finish() }
        subscribers.removeAll()
    }
}
