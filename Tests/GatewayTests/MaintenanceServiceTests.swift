import Foundation
import GRDB
import Gateway
import Logging
import Maintenance
import Storage
import Synchronization
import Testing
import Timing
import TuyaCore
import YoullTestSupport

/// The maintenance service over a real SQLite store in a temporary directory: on a Raspberry
/// Pi that boots with its clock at 1970 and is set by NTP later, and with stored reminders
/// it cannot read at the start.
@Suite("the maintenance service: a step of the wall clock, an unreadable store")
struct MaintenanceServiceTests {
    static let aroma = SessionServiceTests.aroma
    static let boot = Date(timeIntervalSince1970: 10)
    static let synced = Date(timeIntervalSince1970: 1_800_000_000)

    /// One diffuser, online and misting.
    actor MistingController: TuyaControllerProtocol {
        func devices() -> [TuyaDevice] { [MaintenanceServiceTests.aroma] }
        func device(_ id: DeviceID) -> TuyaDevice? { id == MaintenanceServiceTests.aroma.id ? devices()[0] : nil }
        func status(of id: DeviceID) -> ConnectionStatus? { ConnectionStatus(availability: .online) }
        func confirmedState(of id: DeviceID) -> DeviceState? { .diffuser(DiffuserState(power: true, mist: true)) }
        func pendingState(of id: DeviceID) -> DeviceState? { nil }
        func send(_ command: DeviceCommand, to id: DeviceID) -> DeviceState { .diffuser(DiffuserState()) }
        nonisolated func events() -> Mailbox<ControllerEvent> { .finished() }
    }

    @Test("mist running when NTP sets the clock counts the minutes that passed, not 55 years, and nothing falls due")
    func usageAcrossTheStep() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-clock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let database = try GatewayDatabase.open(directory: state)
        let wall = Mutex(Self.boot)
        // The clock is the monotonic one the service reads beside `now`; its own ticks (a day
        // apart here) stay out of the way of the ones the test makes.
        let clock = ManualClock()
        var settings = MaintenanceService.Settings()
        settings.tickInterval = .seconds(86_400)
        let service = MaintenanceService(
            controller: MistingController(), library: Repository.shippedProfiles,
            store: SQLiteMaintenanceStore(database: database), webhook: nil, settings: settings, clock: clock,
            now: { wall.withLock { $0 } }, logger: Logger(label: "maintenance-clock-test"))
        let running = Task { await service.run() }
        defer { running.cancel() }
        await service.waitUntilLoaded()
        // Ten minutes of mist at 1970, then NTP answers; half an hour more after it.
        wall.withLock { $0 = Self.synced }
        clock.advance(by: .seconds(600))
        await service.tick()
        wall.withLock { $0 = Self.synced.addingTimeInterval(1800) }
        clock.advance(by: .seconds(1800))
        await service.tick()
        let reminders = await service.reminders(of: Self.aroma.id).map(\.report)
        let clean = try #require(reminders.first { $0.key.type == "clean" })
        // 40 minutes of the 40 hours: 98 % left.
        #expect(clean.percentRemaining == 98)
        #expect(reminders.allSatisfy { $0.status == .ok }, "\(reminders.map(\.status))")
        // The 14 days count from the registration, carried into the new frame.
        #expect(clean.lastDone == Self.synced.addingTimeInterval(-600))
        let stored = try #require(
            try await SQLiteMaintenanceStore(database: database).reminderStates().first { $0.key.type == "clean" })
        #expect(stored.lastDone == Self.synced.addingTimeInterval(-600))
    }

    @Test(
        "stored reminders that cannot be read are neither replaced by fresh ones nor alerted; once readable they are loaded as stored"
    )
    func unreadableStore() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-unread-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let database = try GatewayDatabase.open(directory: state)
        let store = SQLiteMaintenanceStore(database: database)
        // Before the restart: registered 15 days ago, the clean fell due and alerted.
        var tracker = MaintenanceTracker()
        _ = tracker.register(
            Self.aroma.id, profile: try #require(Repository.shippedProfiles.profile(id: "aroma-diffuser-modern")),
            at: Self.synced.addingTimeInterval(-15 * 86_400))
        let due = tracker.tick(at: Self.synced)
        #expect(due.alerts.map(\.id) == ["\(Self.aroma.id.rawValue):clean:due:1"])
        try await store.save(reminders: tracker.scheduler.states, transitions: due.transitions)
        let usage = UsageSnapshot(
            takenAt: Self.synced, entries: [.init(device: Self.aroma.id, capability: "mist", seconds: 36_000)])
        try await store.save(usage: usage)
        // The table cannot be read at the start.
        let raw = try DatabaseQueue(path: state.appendingPathComponent("state.sqlite").path)
        try await raw.write { try $0.execute(sql: "ALTER TABLE maintenance_reminders RENAME TO hidden_reminders") }
        let wall = Mutex(Self.synced.addingTimeInterval(60))
        let service = MaintenanceService(
            controller: MistingController(), library: Repository.shippedProfiles, store: store, webhook: nil,
            clock: ManualClock(), now: { wall.withLock { $0 } }, logger: Logger(label: "maintenance-unreadable-test"))
        let running = Task { await service.run() }
        defer { running.cancel() }
        await service.waitUntilLoaded()
        #expect(await service.reminders().isEmpty)
        await #expect {
            _ = try await service.markDone(type: "clean", device: Self.aroma.id)
        } throws: { error in
            "\(error)".contains("the stored reminders could not be read")
        }
        await service.tick()
        #expect(await service.reminders().isEmpty)
        // A shutdown meanwhile keeps the stored usage hours (the tracker holds none to save).
        running.cancel()
        await running.value
        #expect(try await store.usageSnapshot() == usage)
        // Readable again: the next tick loads what was stored, still due in its round.
        try await raw.write { try $0.execute(sql: "ALTER TABLE hidden_reminders RENAME TO maintenance_reminders") }
        await service.tick()
        let reminders = await service.reminders(of: Self.aroma.id).map(\.report)
        let clean = try #require(reminders.first { $0.key.type == "clean" })
        #expect(clean.status == .due)
        #expect(clean.lastDone == Self.synced.addingTimeInterval(-15 * 86_400))
        let stored = try #require(try await store.reminderStates().first { $0.key.type == "clean" })
        #expect(stored.round == 1)
        #expect(stored.alerted == ReminderState.AlertMark(status: .due, round: 1))
    }
}
