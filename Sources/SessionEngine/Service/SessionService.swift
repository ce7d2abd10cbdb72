import Foundation
import Timing
import TuyaCore

/// The timer: one session at a time, planned with `SessionPlanner`, played by a
/// `SessionRunner` on the injected clock, persisted through a `SessionStore` as it goes
/// (the record, every state and elapsed update, every cue), and announced as
/// `SessionAnnouncement`s. The headless `TimerModuleInterface`.
///
/// - Stop ends the meditation and plays the preset's end effect from now (a second stop,
///   or `immediately`, skips the effect and applies the end state at once). A timed
///   session stopped early is recorded as `stopped`; an open-ended one, which only ends by
///   hand, as `completed`.
/// - Daemon shutdown (`suspend()`) keeps the session `running` or `paused` in the store
///   with its elapsed time and full cue log (the time is also saved every minute,
///   `checkpoint()`); `recover()` at the next start resumes it or records it as interrupted,
///   or completed when only its end effect was left (`SessionRecovery`).
/// - A completed session earns badges (`badge_earned`), announced before it ends.
public actor SessionService: TimerModuleInterface {
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
        /// How long a session may stay paused before it is stopped, its end state applied (a
        /// sit paused and forgotten would otherwise keep the diffuser misting, the light dim
        /// and maintenance alerts held for days); nil for no limit.
        public var maximumPause: Duration?
        /// Whether the wall clock has been set since the machine started (NTP answered, or it
        /// has a real-time clock). A Raspberry Pi has none: after a power cut it starts on the
        /// time it last saved, behind, until NTP answers. A running session whose last save
        /// the clock reads as still ahead waits for it (`recover()`).
        public var wallClockIsSet: @Sendable () -> Bool
        /// How long such a session waits for the clock before it is recorded as interrupted
        /// (where it was cannot be known then).
        public var wallClockWait: Duration

        public static let defaultMaximumPause = Duration.seconds(3600)

        public init(
            presets: [SessionPreset] = SessionPreset.builtIns, defaultPreset: String = "calm",
            awardsBadges: Bool = true, keepsHistory: Bool = true, timeZone: TimeZone = .current,
            planner: SessionPlanner.Options = SessionPlanner.Options(),
            frameGap: @escaping @Sendable (TuyaDevice) -> Duration? = { _ in nil },
            maximumPause: Duration? = Self.defaultMaximumPause,
            wallClockIsSet: @escaping @Sendable () -> Bool = { true }, wallClockWait: Duration = .seconds(180)
        ) {
            self.presets = presets
            self.defaultPreset = defaultPreset
            self.awardsBadges = awardsBadges
            self.keepsHistory = keepsHistory
            self.timeZone = timeZone
            self.planner = planner
            self.frameGap = frameGap
            self.maximumPause = maximumPause
            self.wallClockIsSet = wallClockIsSet
            self.wallClockWait = wallClockWait
        }
    }

    /// A session being played, or whose last commands are still settling.
    struct Tracked {
        var record: SessionRecord
        let runner: SessionRunner
        let timeline: SessionTimeline
        let names: [DeviceID: String]
        var consumer: Task<Void, Never>?
        var resumed = false
        /// Stops the session once it has been paused for `Settings.maximumPause`.
        var pauseWatch: Task<Void, Never>?
        /// Counts pauses, so a watch outlived by a resume and a new pause does nothing.
        var pauses = 0
        /// When the current pause began, on the wall clock (for a session paused across a
        /// restart, as stored); nil while running.
        var pausedSince: Date?
        /// Its end is stored and announced: `ended` runs once, whoever gets there first (its
        /// event, or `suspend()` when the daemon stops as it ends).
        var endRecorded = false
        /// When it started on `clock` (monotonic), for one started in this process: its end
        /// checks that the wall clock did not step meanwhile (NTP setting a Pi's clock).
        var startedOnClock: Duration?
    }

    public nonisolated let tuyaController: (any TuyaControllerProtocol)?
    /// `tuyaController`, or no devices at all.
    let controller: any TuyaControllerProtocol
    let store: any SessionStore
    let clock: any Clock<Duration>
    public let settings: Settings
    let announce: @Sendable (SessionAnnouncement) async -> Void
    let log: @Sendable (SessionLogEntry) -> Void
    let now: @Sendable () -> Date
    /// Time on `clock` since this service was made: never steps, unlike `now`.
    let clockTime: @Sendable () -> Duration
    let activeChange: @Sendable (Bool) -> Void

    var tracked: [SessionID: Tracked] = [:]
    var activeID: SessionID?
    var starting = false
    /// Set by `suspend()` (until the next launch): a pause running out stops nothing.
    var suspended = false
    /// The session `suspend()` suspends for the next start to resume: its events are no longer
    /// persisted (set only by `suspend()`, cleared by the next launch).
    var suspendedID: SessionID?
    /// Leftover sessions waiting for the wall clock to be set before they are recovered, and
    /// the wait (`waitForWallClock`).
    var heldForClock: [SessionRecord] = []
    var clockWait: Task<Void, Never>?
    /// While the held sessions are being recovered: a `start` meanwhile is refused as busy.
    var recoveringHeld = false
    /// Sessions `start` created in this process: `recover()` leaves them alone.
    var startedHere: Set<SessionID> = []
    private let badges = Broadcast<Badge>()

    /// - Parameters:
    ///   - tuyaController: drives the session's devices; nil runs sessions without devices.
    ///   - clock: `ContinuousClock()` in production; cues fire at deadlines on it.
    ///   - announce: told everything that happens, in order (the bridge, the CLI).
    ///   - log: lines for the host's log.
    ///   - now: wall-clock time for records, "until HH:MM" and streaks.
    ///   - onActiveChange: told `true` when a session starts and `false` when it ends
    ///     (maintenance alerts hold while a session runs).
    public init(
        tuyaController: (any TuyaControllerProtocol)?, store: any SessionStore,
        clock: any Clock<Duration> = ContinuousClock(), settings: Settings = Settings(),
        announce: @escaping @Sendable (SessionAnnouncement) async -> Void = { _ in },
        log: @escaping @Sendable (SessionLogEntry) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = { Date() }, onActiveChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.tuyaController = tuyaController
        controller = tuyaController ?? NoDevices()
        self.store = store
        self.clock = clock
        clockTime = OffsetClock(clock).now
        self.settings = settings
        self.announce = announce
        self.log = log
        self.now = now
        activeChange = onActiveChange
    }

    /// Whether a session is running or paused (its end effect included).
    public var isActive: Bool { activeID != nil }

    public func preset(named name: String) -> SessionPreset? { settings.presets.first { $0.name == name } }

    // MARK: - Control

    /// Plans and starts a session. Refuses while another one is active.
    public func start(_ request: SessionStartRequest) async throws(SessionServiceError) -> SessionStatus {
        if let activeID { throw .alreadyActive(activeID) }
        guard !starting, !recoveringHeld else { throw .busy }
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
            if case .until(let time, _) = request.configuration.length {
                try UntilRule.check(time, tomorrow: request.untilTomorrow, now: startedAt, calendar: calendar)
            }
            timeline = try planner(for: devices).plan(
                request.configuration, startingAt: startedAt, calendar: calendar, preset: preset, devices: devices)
        } catch {
            throw .invalid(error)
        }
        let record = SessionRecord(
            id: .random(), presetName: preset.name, configuration: request.configuration, session: timeline.session,
            devices: devices.map(\.id), state: .running, startedAt: startedAt)
        startedHere.insert(record.id)
        do {
            try await store.save(record)
        } catch {
            throw .storage("saving the new session: \(error)")
        }
        // A leftover waiting for the wall clock ends here: the new session takes its devices.
        await endHeldForClock(as: .interrupted)
        return try await launch(record, timeline: timeline, names: Self.names(of: devices), resuming: nil)
    }

    /// Pausing a paused session changes nothing and is no error (as resuming a running one):
    /// a second press of a pause button, or a retried request, gets the status back.
    public func pause() async throws(SessionServiceError) -> SessionStatus {
        let runner = try activeRunner()
        if await runner.status().state == .paused { return await runner.status() }
        do { try await runner.pause() } catch { throw .invalid(error) }
        return await runner.status()
    }

    public func resume() async throws(SessionServiceError) -> SessionStatus {
        let runner = try activeRunner()
        if await runner.status().state == .running { return await runner.status() }
        do { try await runner.resume() } catch { throw .invalid(error) }
        return await runner.status()
    }

    /// Ends the session: the preset's end effect plays from now, unless `immediately` (or
    /// the end effect is already playing), which applies the end state at once.
    public func stop(immediately: Bool = false) async throws(SessionServiceError) -> SessionStatus {
        if activeID == nil, let ended = await endHeldForClock(as: .stopped) { return ended }
        let runner = try activeRunner()
        guard let id = activeID, let timeline = tracked[id]?.timeline else { throw .noSession }
        let before = await runner.status()
        do {
            if immediately || before.phase == .ending {
                try await runner.stop()
                // The timeline read before any suspension: the session's end may have been
                // handled meanwhile, and its tracking dropped.
                applyFinalState(of: timeline, captured: await runner.capturedStates())
            } else {
                try await runner.finish()
                if before.state == .paused { try await runner.resume() }
                let endingAt = await runner.status().elapsed
                tracked[id]?.record.endingStartedAt = endingAt
                try? await store.update(
                    id, state: .running, elapsed: endingAt, elapsedAt: now(), endingStartedAt: endingAt, endedAt: nil)
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

    /// The active session's status with its devices' names; nil when none runs.
    public func namedStatus() async -> (status: SessionStatus, names: [DeviceID: String])? {
        guard let id = activeID, let session = tracked[id] else { return nil }
        return (await session.runner.status(), session.names)
    }

    /// Totals, streaks and badges over every finished session, with the latest `limit`.
    public func history(limit: Int?) async throws(SessionServiceError) -> SessionHistoryReport {
        guard settings.keepsHistory else { throw .historyOff }
        do {
            let summary = try await completedHistory()
            let badges = try await store.earnedBadges()
            let sessions = try await store.history(limit: limit.map { max(0, $0) })
            return SessionHistoryReport(summary: summary, sessions: sessions, badges: badges)
        } catch {
            throw .storage("loading the history: \(error)")
        }
    }

    /// Every badge earned from now on; the stream ends when the caller stops reading.
    public nonisolated func badgeEvents() -> AsyncStream<Badge> {
        badges.stream()
    }

    /// Tells the announcement's listener and, for a badge, every `badgeEvents()` stream.
    func tell(_ announcement: SessionAnnouncement) async {
        if case .badgeEarned(let badge) = announcement {
            badges.send(badge)
        }
        await announce(announcement)
    }

    // MARK: - Choosing

    func planner(for devices: [TuyaDevice]) -> SessionPlanner {
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

    static func names(of devices: [TuyaDevice]) -> [DeviceID: String] {
        Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
