import Foundation
import Gateway
import Logging
import Maintenance
import Storage
import Synchronization
import Testing
import Timing
import TuyaCore
import YoullTestSupport

/// The maintenance service on a Raspberry Pi that boots with its clock at 1970 and is set by
/// NTP a few minutes later, over a real SQLite store in a temporary directory.
@Suite("the maintenance service across a step of the wall clock")
struct MaintenanceServiceClockTests {
    static let aroma = SessionServiceTests.aroma
    static let boot = Date(timeIntervalSince1970: 10)
    static let synced = Date(timeIntervalSince1970: 1_800_000_000)

    /// One diffuser, online and misting.
    actor MistingController: TuyaControllerProtocol {
        func devices() -> [TuyaDevice] { [MaintenanceServiceClockTests.aroma] }
        func device(_ id: DeviceID) -> TuyaDevice? { id == MaintenanceServiceClockTests.aroma.id ? devices()[0] : nil }
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
        let monotonic = Mutex(Duration.zero)
        let service = MaintenanceService(
            controller: MistingController(), library: Repository.shippedProfiles,
            store: SQLiteMaintenanceStore(database: database), webhook: nil, clock: ManualClock(),
            now: { wall.withLock { $0 } }, monotonic: { monotonic.withLock { $0 } },
            logger: Logger(label: "maintenance-clock-test"))
        let running = Task { await service.run() }
        defer { running.cancel() }
        await service.waitUntilLoaded()
        // Ten minutes of mist at 1970, then NTP answers; half an hour more after it.
        wall.withLock { $0 = Self.synced }
        monotonic.withLock { $0 = .seconds(600) }
        await service.tick()
        wall.withLock { $0 = Self.synced.addingTimeInterval(1800) }
        monotonic.withLock { $0 = .seconds(2400) }
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
}
