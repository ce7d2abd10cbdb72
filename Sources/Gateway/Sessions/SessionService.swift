import Foundation
import Logging
import SessionEngine
import TuyaCore

/// The gateway's timer: one session at a time, planned with `SessionPlanner`, played by a
/// `SessionRunner` on the injected clock, persisted through a `SessionStore` as it goes
/// (the record, every state and elapsed update, every cue), and announced through a
/// `SessionAnnouncer` (the bridge's `session_*` events and retained `bridge/session`).
///
/// - Stop ends the meditation and plays the preset's end effect from now (a second stop,
///   or `immediately`, skips the effect and applies the end state at once). A timed
///   session stopped early is recorded as `stopped`; an open-ended one, which only ends by
///   hand, as `completed`.
/// - Daemon shutdown (`suspend()`) keeps the session `running` or `paused` in the store
///   with its elapsed time and full cue log; `recover()` at the next start resumes it
///   when its planned end is still ahead (no logged cue fires again), else records it as
///   `interrupted` and applies the end state. The planned end is the start time plus the
///   session's length: pauses before the restart are not counted, so a session paused
///   and resumed near its end may be taken as over.
public actor SessionService {
    /// Presets and switches from the config file.
    public struct Settings: Sendable {
        public var presets: [SessionPreset]
        /// Used when a start request names none.
        public var defaultPreset: String
        /// Whether completed sessions earn badges (announced as `badge_earned`).
        public var awardsBadges: Bool
        /// Whether `history` answers (`timer.history` in the config); sessions are still
        /// stored, since recovery needs them.
        public var keepsHistory: Bool
        /// Decides what "07:30" and a streak's day mean.
        public var timeZone: TimeZone
        public var planner: SessionPlanner.Options
        /// A device's frame gap (from its profile), so ramps step no faster than it takes
        /// frames; nil keeps the planner's default.
        public var frameGap: @Sendable (TuyaDevice) -> Duration?

        public init(
            presets: [SessionPreset] = SessionPreset.builtIns, defaultPreset: String = "calm",
            awardsBadges: Bool = true, keepsHistory: Bool = true, timeZone: TimeZone = .current,
            planner: SessionPlanner.Options = SessionPlanner.Options(),
            frameGap: @escaping @Sendable (TuyaDevice) -> Duration? = { _ in nil }
        ) {
            self.presets = presets
            self.defaultPreset = defaultPreset
            self.awardsBadges = awardsBadges
            self.keepsHistory = keepsHistory
            self.timeZone = timeZone
            self.planner = planner
            self.frameGap = frameGap
        }
    }

    /// A session being played, or whose last commands are still settling.
    private struct Tracked {
        var record: SessionRecord
        let runner: SessionRunner
        let timeline: SessionTimeline
        let names: [DeviceID: String]
        var consumer: Task<Void, Never>?
        var stopRequested = false
        var resumed = false
    }

    let controller: any TuyaControllerProtocol
    let store: any SessionStore
    let clock: any Clock<Duration>
    public let settings: Settings
    let announcer: SessionAnnouncer
    let logger: Logger
    let now: @Sendable () -> Date

    private var tracked: [SessionID: Tracked] = [:]
    private var activeID: SessionID?
    private var starting = false
    /// Set by `suspend()`: events after it are not persisted (the session stays resumable).
    private var suspended = false
    private var activeChange: @Sendable (Bool) -> Void

    /// - Parameters:
    ///   - clock: `ContinuousClock()` in production; cues fire at deadlines on it.
    ///   - now: wall-clock time for records, "until HH:MM" and streaks.
    ///   - onActiveChange: told `true` when a session starts and `false` when it ends
    ///     (maintenance alerts hold while a session runs).
    public init(
        controller: any TuyaControllerProtocol, store: any SessionStore, clock: any Clock<Duration> = ContinuousClock(),
        settings: Settings = Settings(), announcer: SessionAnnouncer = .silent, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }, onActiveChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.controller = controller
        self.store = store
        self.clock = clock
        self.settings = settings
        self.announcer = announcer
        self.logger = logger
        self.now = now
        activeChange = onActiveChange
    }

    /// Whether a session is running or paused (its end effect included).
    public var isActive: Bool { activeID != nil }

    /// Replaces the hook told when a session starts (`true`) and ends (`false`).
    public func onActiveChange(_ hook: @escaping @Sendable (Bool) -> Void) {
        activeChange = hook
    }

    public func preset(named name: String) -> SessionPreset? { settings.presets.first { $0.name == name } }

    // MARK: - Control

    /// Plans and starts a session. Refuses while another one is active.
    public func start(_ request: SessionStartRequest) async throws(SessionServiceError) -> SessionStatus {
        if let activeID { throw .alreadyActive(activeID) }
        guard !starting else { throw .busy }
        starting = true
        defer { starting = false }
        let presetName = request.preset ?? settings.defaultPreset
        guard let preset = preset(named: presetName) else {
            throw .unknownPreset(presetName, known: settings.presets.map(\.name))
        }
        let devices = try await selectDevices(request.devices)
        let startedAt = now()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = settings.timeZone
        let timeline: SessionTimeline
        do {
            timeline = try planner(for: devices).plan(
                request.configuration, startingAt: startedAt, calendar: calendar, preset: preset, devices: devices)
        } catch {
            throw .invalid(error)
        }
        let record = SessionRecord(
            id: .random(), presetName: preset.name, configuration: request.configuration, session: timeline.session,
            devices: devices.map(\.id), state: .running, startedAt: startedAt)
        do {
            try await store.save(record)
        } catch {
            throw .storage("saving the new session: \(error)")
        }
        let names = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return try await launch(record, timeline: timeline, names: names, resuming: nil)
    }

    public func pause() async throws(SessionServiceError) -> SessionStatus {
        let runner = try activeRunner()
        do { try await runner.pause() } catch { throw .invalid(error) }
        return await runner.status()
    }

    public func resume() async throws(SessionServiceError) -> SessionStatus {
        let runner = try activeRunner()
        do { try await runner.resume() } catch { throw .invalid(error) }
        return await runner.status()
    }

    /// Ends the session: the preset's end effect plays from now, unless `immediately` (or
    /// the end effect is already playing), which applies the end state at once.
    public func stop(immediately: Bool = false) async throws(SessionServiceError) -> SessionStatus {
        let runner = try activeRunner()
        guard let id = activeID else { throw .noSession }
        tracked[id]?.stopRequested = true
        let before = await runner.status()
        do {
            if immediately || before.phase == .ending {
                try await runner.stop()
                let captured = await runner.capturedStates()
                if let timeline = tracked[id]?.timeline { applyFinalState(of: timeline, captured: captured) }
            } else {
                try await runner.finish()
                if before.state == .paused { try await runner.resume() }
                let endingAt = await runner.status().elapsed
                tracked[id]?.record.endingStartedAt = endingAt
                try? await store.update(
                    id, state: .running, elapsed: endingAt, endingStartedAt: endingAt, endedAt: nil)
            }
        } catch {
            throw .invalid(error)
        }
        return await runner.status()
    }

    /// The active session's status; nil when none runs.
    public func status() async -> SessionStatus? {
        guard let id = activeID, let runner = tracked[id]?.runner else { return nil }
        return await runner.status()
    }

    /// The active session's status as `bridge/session` carries it, or `{"state":"idle"}`.
    public func statusJSON() async -> JSONValue {
        guard let id = activeID, let session = tracked[id] else { return SessionStatusPayload.idle }
        return SessionStatusPayload.json(await session.runner.status(), names: session.names)
    }

    /// Totals, streaks and badges over every finished session, with the latest `limit`.
    public func history(limit: Int?) async throws(SessionServiceError) -> SessionHistoryReport {
        guard settings.keepsHistory else { throw .historyOff }
        do {
            let all = try await store.history(limit: nil)
            let summary = SessionHistory(sessions: all.map(\.summary), timeZone: settings.timeZone, now: now())
            let badges = try await store.earnedBadges()
            return SessionHistoryReport(
                summary: summary, sessions: Array(all.prefix(max(0, limit ?? all.count))), badges: badges)
        } catch {
            throw .storage("loading the history: \(error)")
        }
    }

    // MARK: - Daemon start and stop

    /// At daemon start: resumes the session that was running or paused when the daemon
    /// stopped, if its planned end is still ahead; marks the others `interrupted` and
    /// applies their end state.
    public func recover() async {
        let records: [SessionRecord]
        do {
            records = try await store.activeSessions()
        } catch {
            logger.error("cannot read the sessions to recover: \(error)")
            return
        }
        for record in records {
            do {
                try await recover(record)
            } catch {
                logger.error("session \(record.id) could not be recovered: \(error); marking it interrupted")
                await markInterrupted(record, timeline: nil)
            }
        }
    }

    /// At daemon shutdown: stops playing without ending the session, saves its elapsed
    /// time and cue log, so the next start resumes it.
    public func suspend() async {
        suspended = true
        guard let id = activeID, let session = tracked[id] else { return }
        let before = await session.runner.status().state
        try? await session.runner.stop()
        let log = await session.runner.cueLog()
        let elapsed = await session.runner.status().elapsed
        do {
            for cue in log { try await store.record(cue, in: id) }
            try await store.update(
                id, state: before == .paused ? .paused : .running, elapsed: elapsed,
                endingStartedAt: session.record.endingStartedAt, endedAt: nil)
            logger.info("session \(id) suspended at \(elapsed.sessionSeconds) s; it resumes at the next start")
        } catch {
            logger.error("could not save session \(id) for the next start: \(error)")
        }
        session.consumer?.cancel()
        tracked[id] = nil
        activeID = nil
        activeChange(false)
    }

    private func recover(_ record: SessionRecord) async throws {
        guard let preset = preset(named: record.presetName) else {
            throw SessionServiceError.unknownPreset(record.presetName, known: settings.presets.map(\.name))
        }
        let paired = await controller.devices()
        let devices = paired.filter { record.devices.contains($0.id) }
        let timeline = try SessionPlanner(options: settings.planner).plan(
            record.session, preset: preset, devices: devices)
        let log = try await store.cueLog(of: record.id)
        let plannedEnd: Duration =
            if let ending = record.endingStartedAt {
                ending + (timeline.endingCues.last?.offset ?? .zero)
            } else {
                timeline.totalDuration
            }
        let endDate = record.startedAt.addingTimeInterval(plannedEnd.sessionSeconds)
        guard activeID == nil, record.state == .paused || endDate > now() else {
            await markInterrupted(record, timeline: timeline)
            return
        }
        var resumed = record
        resumed.state = .running
        let point = SessionRunner.ResumePoint(
            elapsed: record.elapsed, firedCues: Set(log.map(\.cueIndex)), endingStartedAt: record.endingStartedAt,
            captured: record.captured)
        let names = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        logger.info(
            "resuming session \(record.id) (\(record.presetName)) at \(record.elapsed.sessionSeconds) s; \(log.count) cues already fired"
        )
        _ = try await launch(resumed, timeline: timeline, names: names, resuming: point)
        if record.state == .paused, let runner = tracked[record.id]?.runner { try await runner.pause() }
    }

    private func markInterrupted(_ record: SessionRecord, timeline: SessionTimeline?) async {
        let endedAt = now()
        do {
            try await store.update(
                record.id, state: .interrupted, elapsed: record.elapsed, endingStartedAt: record.endingStartedAt,
                endedAt: endedAt)
        } catch {
            logger.error("could not mark session \(record.id) interrupted: \(error)")
        }
        logger.notice("session \(record.id) was interrupted by a restart past its planned end; applying its end state")
        if let timeline { applyFinalState(of: timeline, captured: record.captured) }
        await announcer.event(
            "session_ended",
            [
                "id": .string(record.id.rawValue), "preset": .string(record.presetName),
                "state": .string(SessionState.interrupted.rawValue),
                "elapsed_seconds": SessionStatusPayload.seconds(record.elapsed),
            ])
    }

    // MARK: - Playing

    private func planner(for devices: [TuyaDevice]) -> SessionPlanner {
        var options = settings.planner
        for device in devices {
            if let gap = settings.frameGap(device) { options.frameGaps[device.id] = gap }
        }
        return SessionPlanner(options: options)
    }

    private func activeRunner() throws(SessionServiceError) -> SessionRunner {
        guard let id = activeID, let runner = tracked[id]?.runner else { throw .noSession }
        return runner
    }

    private func selectDevices(_ references: [String]?) async throws(SessionServiceError) -> [TuyaDevice] {
        let paired = await controller.devices()
        guard let references else { return paired }
        var chosen: [TuyaDevice] = []
        for (index, reference) in references.enumerated() {
            guard
                let device = paired.first(where: { $0.name == reference })
                    ?? paired.first(where: { $0.id.rawValue == reference })
            else { throw .unknownDevice(field: "devices[\(index)]", reference: reference) }
            if !chosen.contains(where: { $0.id == device.id }) { chosen.append(device) }
        }
        return chosen
    }

    private func launch(
        _ record: SessionRecord, timeline: SessionTimeline, names: [DeviceID: String],
        resuming point: SessionRunner.ResumePoint?
    ) async throws(SessionServiceError) -> SessionStatus {
        let runner = SessionRunner(id: record.id, timeline: timeline, controller: controller, clock: clock)
        let events = await runner.events()
        let id = record.id
        var session = Tracked(record: record, runner: runner, timeline: timeline, names: names)
        session.resumed = point != nil
        session.consumer = Task { [weak self] in
            for await event in events { await self?.handle(event, of: id) }
            await self?.eventsEnded(id)
        }
        tracked[id] = session
        activeID = id
        suspended = false
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
        guard !suspended, let session = tracked[id] else { return }
        do {
            switch event {
            case .started(let status, let captured):
                tracked[id]?.record.captured = captured
                if let record = tracked[id]?.record { try await store.save(record) }
                await announcer.event(
                    "session_started",
                    [
                        "id": .string(id.rawValue), "preset": .string(status.presetName),
                        "resumed": .bool(session.resumed),
                        "devices": .array(session.record.devices.map { .string(session.names[$0] ?? $0.rawValue) }),
                        "length_seconds": session.timeline.session.isOpenEnded
                            ? .null : SessionStatusPayload.seconds(session.timeline.end),
                    ])
                await publishStatus(of: id)
            case .phaseChanged:
                await publishStatus(of: id)
            case .cueFired(let cue):
                announcer.cue(cue)
                try await store.record(cue, in: id)
                try await store.update(
                    id, state: .running, elapsed: cue.actual, endingStartedAt: tracked[id]?.record.endingStartedAt,
                    endedAt: nil)
                await announcer.event("session_cue", SessionStatusPayload.cue(cue, session: id, names: session.names))
                await publishStatus(of: id)
            case .cueSettled(let cue):
                try await store.record(cue, in: id)
            case .paused(let elapsed), .resumed(let elapsed):
                let paused = if case .paused = event { true } else { false }
                try await store.update(
                    id, state: paused ? .paused : .running, elapsed: elapsed,
                    endingStartedAt: tracked[id]?.record.endingStartedAt, endedAt: nil)
                await announcer.event(
                    paused ? "session_paused" : "session_resumed",
                    ["id": .string(id.rawValue), "elapsed_seconds": SessionStatusPayload.seconds(elapsed)])
                await publishStatus(of: id)
            case .ended(let state, let elapsed):
                try await ended(id, state: state, elapsed: elapsed)
            }
        } catch {
            logger.error("session \(id): could not record \(event): \(error)")
        }
    }

    private func ended(_ id: SessionID, state: SessionState, elapsed: Duration) async throws {
        guard let session = tracked[id] else { return }
        let final: SessionState =
            state == .completed && session.stopRequested && !session.timeline.session.isOpenEnded ? .stopped : state
        if activeID == id {
            activeID = nil
            activeChange(false)
        }
        try await store.update(
            id, state: final, elapsed: elapsed, endingStartedAt: session.record.endingStartedAt, endedAt: now())
        logger.info("session \(id) \(final.rawValue) after \(elapsed.sessionSeconds) s")
        // Badges first: whoever reacts to `session_ended` reads a history that has them.
        if final == .completed, settings.awardsBadges { try await awardBadges() }
        await announcer.event(
            "session_ended",
            [
                "id": .string(id.rawValue), "preset": .string(session.record.presetName),
                "state": .string(final.rawValue),
                "elapsed_seconds": SessionStatusPayload.seconds(elapsed),
            ])
        if activeID == nil { await announcer.status(SessionStatusPayload.idle) }
    }

    private func awardBadges() async throws {
        let all = try await store.history(limit: nil)
        let history = SessionHistory(sessions: all.map(\.summary), timeZone: settings.timeZone, now: now())
        let new = history.newBadges(alreadyEarned: try await store.earnedBadges())
        guard !new.isEmpty else { return }
        try await store.saveBadges(new, earnedAt: now())
        for badge in new {
            await announcer.event(
                "badge_earned", ["badge": .string(badge.rawValue), "name": .string(badge.description)])
        }
    }

    private func eventsEnded(_ id: SessionID) {
        guard tracked[id] != nil, activeID != id else { return }
        tracked[id] = nil
    }

    private func publishStatus(of id: SessionID) async {
        guard activeID == id, let session = tracked[id] else { return }
        await announcer.status(SessionStatusPayload.json(await session.runner.status(), names: session.names))
    }

    /// Sends each device its end state, without waiting: an offline device keeps it as its
    /// desired state and catches up when it returns.
    private func applyFinalState(of timeline: SessionTimeline, captured: [DeviceID: DeviceState]) {
        let commands = SessionFinalState.commands(of: timeline, captured: captured)
        let controller = controller
        let logger = logger
        for (device, command) in commands.sorted(by: { $0.key < $1.key }) {
            Task {
                do {
                    try await controller.send(command, to: device)
                } catch {
                    logger.notice("end state for \(device) not confirmed yet: \(error)")
                }
            }
        }
    }
}

extension Duration {
    /// Seconds as a `Double`, for dates and messages.
    var sessionSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
