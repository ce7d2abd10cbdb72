import DeepLinks
import Foundation
import Logging
import Maintenance
import Synchronization
import TuyaCore
import Timing

/// Runs the pure `MaintenanceTracker` inside the daemon: registers every paired device with
/// its profile's rules (and each one paired or removed later), feeds it the controller's
/// reports, availability and faults, ticks it on the injected clock, stores what changed
/// and delivers alerts.
///
/// Each update is carried out in `MaintenanceUpdate`'s documented order, one update at a
/// time: alerts into the webhook's durable outbox first, then the reminder states and
/// transitions in one transaction, then the bridge (event and retained reminders) and the
/// log. A crash in between repeats an alert with the same id, which the outbox drops,
/// rather than losing it.
public actor MaintenanceService {
    /// Timing and routing settings; the defaults are the daemon's.
    public struct Settings: Sendable {
        /// How often calendar triggers, usage and snoozes are re-evaluated.
        public var tickInterval: Duration = .seconds(60)
        /// Configured https hosts for universal links (`deep_links.universal_link_hosts`).
        public var universalLinkHosts: Set<String> = []
        /// Timer preset names a `youll://timer?preset=` link may name (the daemon passes
        /// `timer.presetNames`: the built-ins and the configured ones).
        public var presets: Set<String> = GatewayConfiguration.Timer().presetNames
        public var policy = ReminderPolicy()

        public init() {}
    }

    /// The registry the service reads devices and events from (`TuyaController` in the daemon).
    public typealias Registry = TuyaControllerProtocol

    let controller: any Registry
    let library: ProfileLibrary
    private let store: SQLiteMaintenanceStore
    private let webhook: WebhookDelivery?
    private let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    /// Time on `clock`, which never steps: read beside `now` to notice the wall clock stepping.
    private let monotonic: @Sendable () -> Duration
    private var clockSteps = ClockStepDetector()
    let settings: Settings
    let logger: Logger
    private let publisher: (any MaintenancePublisher)?

    var tracker: MaintenanceTracker
    var names: [DeviceID: String] = [:]
    var sessionRunning = false
    /// Whether the stored states are loaded and the paired devices registered; requests wait for it.
    var loaded = false
    var loadWaiters: [CheckedContinuation<Void, Never>] = []
    /// Why the stored reminders could not be read, while they cannot: nothing is registered,
    /// saved or alerted (fresh states saved over them would erase their history, and their
    /// alerts would reuse delivered ids), and each tick tries again.
    var storeUnreadable: String?
    /// The tail of the chain that performs updates one after another, in the order they were made.
    private var performing: Task<String?, Never>?
    /// The session engine's changes as `sessionChanged` takes them, applied in order by `run()`.
    /// Each is numbered: `load()` applies the latest, and the ones before it are not replayed.
    private nonisolated let sessionChanges = AsyncStream.makeStream(of: (number: Int, running: Bool).self)
    /// The latest of them, which `load()` applies before it registers the devices: a session
    /// resumed at start holds the alerts that registering would otherwise send.
    private nonisolated let latestSession = Mutex((number: 0, running: false))
    /// The number of the last session change applied.
    private var sessionChangeApplied = 0

    /// - Parameter publisher: where alerts and reminder lists are published (the bridge).
    public init(
        controller: any Registry, library: ProfileLibrary, store: SQLiteMaintenanceStore, webhook: WebhookDelivery?,
        publisher: (any MaintenancePublisher)? = nil, settings: Settings = Settings(),
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        monotonic = OffsetClock(clock).now
        self.controller = controller
        self.publisher = publisher
        self.library = library
        self.store = store
        self.webhook = webhook
        self.settings = settings
        self.clock = clock
        self.now = now
        self.logger = logger
        self.tracker = MaintenanceTracker(policy: settings.policy)
    }

    /// Loads the stored states, registers the paired devices, then follows the controller's
    /// events, ticks and (with a webhook) delivers the outbox, until the task is cancelled.
    /// Once only: the session engine's changes come through a stream it ends.
    /// The daemon runs it once the timer has recovered its session, so alerts that session
    /// holds are not sent at the start.
    public func run() async {
        let events = controller.events()
        await load()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                for await event in events {
                    guard let self else { return }
                    await self.handle(event, thenBufferedFrom: events)
                }
            }
            group.addTask { [weak self, sessionChanges] in
                for await change in sessionChanges.stream { await self?.apply(change) }
            }
            group.addTask { [weak self, clock, settings] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: settings.tickInterval) } catch { return }
                    await self?.tick()
                }
            }
            if let webhook {
                group.addTask { await webhook.run() }
            }
            await group.waitForAll()
        }
        _ = await performing?.value
        await saveUsage()
    }

    /// The session engine's state, from any thread without waiting: applied by `run()` in the
    /// order given (a start and an end a moment apart never arrive reversed).
    public nonisolated func sessionChanged(running: Bool) {
        latestSession.withLock {
            $0 = ($0.number + 1, running)
            sessionChanges.continuation.yield($0)
        }
    }

    private func apply(_ change: (number: Int, running: Bool)) async {
        guard change.number > sessionChangeApplied else { return }
        sessionChangeApplied = change.number
        await setSessionRunning(change.running)
    }

    /// The session engine's state: while a session runs, alerts are held; when it ends,
    /// those still owed are delivered.
    public func setSessionRunning(_ running: Bool) async {
        sessionRunning = running
        await perform(tracker.setSessionRunning(running, at: await currentTime()))
    }

    /// Re-evaluates every reminder now (the periodic tick).
    public func tick() async {
        if storeUnreadable != nil {
            await retryLoad()
            return
        }
        await perform(tracker.tick(at: await currentTime()))
        await saveUsage()
    }

    // MARK: - Events

    private func load() async {
        (sessionChangeApplied, sessionRunning) = latestSession.withLock { $0 }
        if let failure = await restoreStored() {
            storeUnreadable = failure
            logger.error(
                "maintenance: could not read the stored reminders (\(failure)); reminders are held until they can be read, retried every minute"
            )
        } else {
            await registerPaired()
        }
        loaded = true
        for waiter in loadWaiters { waiter.resume() }
        loadWaiters = []
    }

    /// Another attempt to read the stored reminders; once it succeeds, the paired devices
    /// are registered as at a start.
    private func retryLoad() async {
        guard let failure = await restoreStored() else {
            storeUnreadable = nil
            logger.notice("maintenance: the stored reminders could be read again")
            await registerPaired()
            return
        }
        storeUnreadable = failure
    }

    /// Reads the stored reminders and usage into a new tracker; why not, when they cannot be read.
    private func restoreStored() async -> String? {
        do {
            let states = try await store.reminderStates()
            let usage = try await store.usageSnapshot()
            tracker = MaintenanceTracker(policy: settings.policy, reminders: states, usage: usage)
            if let latest = tracker.latestRecordedTime { clockSteps.noteRestored(upTo: latest) }
            logger.debug("maintenance: \(states.count) stored reminders loaded")
        } catch {
            return "\(error)"
        }
        // No device is registered yet: the update is empty.
        _ = tracker.setSessionRunning(sessionRunning, at: now())
        return nil
    }

    private func registerPaired() async {
        // Every paired device in one update: one transaction and one retained list each,
        // however many devices there are. A shutdown during the start stops here.
        var update = MaintenanceUpdate()
        for device in await controller.devices() {
            guard !Task.isCancelled else { break }
            names[device.id] = device.name
            update.merge(await registration(of: device))
        }
        await perform(update)
        let published = Set(update.reminders.map(\.key.device) + update.alerts.map(\.device))
        for device in names.keys.sorted() where !published.contains(device) {
            guard !Task.isCancelled else { break }
            await publishReminders(of: device)
        }
    }

    private func register(_ device: TuyaDevice) async {
        names[device.id] = device.name
        guard storeUnreadable == nil else { return }
        await perform(await registration(of: device))
        await publishReminders(of: device.id)
    }

    /// Starts tracking `device`'s rules, from what the controller knows of it now.
    private func registration(of device: TuyaDevice) async -> MaintenanceUpdate {
        guard let profile = library.profile(id: device.profileID) else { return MaintenanceUpdate() }
        let time = await currentTime()
        var update = tracker.register(device.id, profile: profile, at: time)
        if await controller.status(of: device.id)?.availability == .online {
            update.merge(tracker.deviceOnline(device.id, at: time))
            if let state = await controller.confirmedState(of: device.id) {
                update.merge(tracker.observe(state: state, of: device.id, at: time))
            }
        }
        return update
    }

    /// One hop onto the service for a run of events, not one per event.
    private func handle(_ event: ControllerEvent, thenBufferedFrom events: Mailbox<ControllerEvent>) async {
        await handle(event)
        while let next = events.nextIfBuffered() { await handle(next) }
    }

    private func handle(_ event: ControllerEvent) async {
        let time = await currentTime()
        switch event {
        case .stateChanged(let id, let state):
            await perform(tracker.observe(state: state, of: id, at: time))
        case .availabilityChanged(let id, let status):
            if status.availability == .online {
                await perform(tracker.deviceOnline(id, at: time))
            } else {
                await perform(tracker.deviceOffline(id, at: time))
            }
        case .faultRaised, .faultCleared:
            // The state report that carries the fault arrives as `stateChanged` too.
            break
        case .devicePaired(let device):
            await register(device)
        case .deviceRemoved(let id):
            let name = name(of: id)
            tracker.forget(id)
            names[id] = nil
            // An update already under way for the device may still queue its alert or save its
            // rows: it finishes first, so what is forgotten stays forgotten.
            _ = await performing?.value
            do { try await store.forget(id) } catch { logger.error("maintenance: could not forget \(id): \(error)") }
            await publisher?.publishMaintenanceReminders(.array([]), deviceName: name)
        case .candidateFound, .desiredExpired:
            break
        }
    }

    // MARK: - Time

    /// The wall time now. When the wall clock stepped since the last reading (NTP setting a
    /// Pi's clock after boot), the tracker is carried across the step first, so usage running
    /// across it counts only the time that passed.
    func currentTime() async -> Date {
        let wall = now()
        guard let step = clockSteps.read(wall: wall, monotonic: monotonic()) else { return wall }
        logger.notice(
            "maintenance: the wall clock moved \(Int(step.offset)) s beyond the time that passed; usage running across the step is not counted"
        )
        await perform(tracker.clockStepped(step))
        return wall
    }

    // MARK: - Performing updates

    /// Carries out `update` after the ones before it; returns why its states could not be
    /// saved, or nil when they were.
    @discardableResult
    func perform(_ update: MaintenanceUpdate) async -> String? {
        guard !update.isEmpty else { return nil }
        let previous = performing
        let task = Task {
            _ = await previous?.value
            return await self.carryOut(update)
        }
        performing = task
        return await task.value
    }

    private func carryOut(_ update: MaintenanceUpdate) async -> String? {
        var failure: String?
        // 1. The durable sink: the webhook's outbox (idempotent by alert id).
        if let webhook {
            for alert in update.alerts {
                do {
                    var named = alert
                    named.friendlyName = name(of: alert.device)
                    try await webhook.deliver(named)
                } catch {
                    logger.error("maintenance: alert \(alert.id) could not be queued for the webhook: \(error)")
                }
            }
        }
        // 2. States and transitions, one transaction.
        do {
            try await store.save(reminders: update.reminders, transitions: update.transitions)
        } catch {
            logger.error("maintenance: could not store reminder states: \(error)")
            failure = "\(error)"
        }
        for transition in update.transitions {
            logger.debug("maintenance: \(name(of: transition.key.device)) \(transition)")
        }
        // 3. The other sinks: the retained reminder lists (first, so whoever reacts to the
        // event reads them current), the bridge event and the log.
        let touched = Set(update.reminders.map(\.key.device) + update.alerts.map(\.device))
        for device in touched.sorted() { await publishReminders(of: device) }
        for alert in update.alerts {
            let name = name(of: alert.device)
            logger.notice("maintenance alert: \(name): \(alert.title) (\(alert.state)) \(alert.deeplink)")
            await publisher?.publishMaintenanceAlert(alert, deviceName: name)
        }
        // 4. The device's own counter, once "done" is stored (not when it could not be: the
        // answer says so, and the task is not done): not waited for.
        for write in update.resetWrites where failure == nil {
            let name = name(of: write.device)
            Task { [controller, logger] in
                do {
                    try await controller.write(write.dataPoints, to: write.device)
                    logger.info("maintenance: \(name) reset its own \(write.type) counter")
                } catch {
                    logger.warning("maintenance: could not reset the \(write.type) counter of \(name): \(error)")
                }
            }
        }
        if !update.transitions.isEmpty { await saveUsage() }
        return failure
    }

    func publishReminders(of device: DeviceID) async {
        guard let publisher else { return }
        let name = name(of: device)
        let list = currentReminders(of: device).map { MaintenanceJSON.reminder($0.report, deviceName: name) }
        await publisher.publishMaintenanceReminders(.array(list), deviceName: name)
    }

    private func saveUsage() async {
        // An empty tracker's usage would replace the stored hours it could not read.
        guard storeUnreadable == nil else { return }
        do {
            try await store.save(usage: tracker.usageSnapshot(at: now()))
        } catch {
            logger.warning("maintenance: could not store usage: \(error)")
        }
    }
}
