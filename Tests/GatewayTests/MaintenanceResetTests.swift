import Foundation
import Gateway
import Logging
import Maintenance
import Storage
import Testing
import Timing
import TuyaCore
import YoullTestSupport

/// A rule with `reset_dp`: marking its task done writes the device's own counter reset to
/// that device, through the controller's raw write. Over real SQLite.
@Suite("maintenance: the reset write of a task marked done")
struct MaintenanceResetTests {
    static let profile = try! SharedProfiles.resettingDiffuser()
    static let diffuser = TuyaDevice(
        id: DeviceID("bf00000000000000filter")!, name: "filter", profileID: "resetting-diffuser", category: .diffuser,
        transport: .mqtt, productID: "filter")

    /// The diffuser, online and idle; raw writes recorded.
    actor WriteRecorder: TuyaControllerProtocol {
        private(set) var writes: [(DeviceID, DataPoints)] = []
        private var waiter: CheckedContinuation<Void, Never>?

        func devices() -> [TuyaDevice] { [MaintenanceResetTests.diffuser] }
        func device(_ id: DeviceID) -> TuyaDevice? { id == MaintenanceResetTests.diffuser.id ? devices()[0] : nil }
        func status(of id: DeviceID) -> ConnectionStatus? { ConnectionStatus(availability: .online) }
        func confirmedState(of id: DeviceID) -> DeviceState? { .diffuser(DiffuserState(power: true, mist: false)) }
        func pendingState(of id: DeviceID) -> DeviceState? { nil }
        func send(_ command: DeviceCommand, to id: DeviceID) -> DeviceState { .diffuser(DiffuserState()) }
        nonisolated func events() -> Mailbox<ControllerEvent> { .finished() }

        func write(_ dataPoints: DataPoints, to id: DeviceID) -> DeviceState {
            writes.append((id, dataPoints))
            waiter?.resume()
            waiter = nil
            return .diffuser(DiffuserState())
        }

        /// Returns once a write arrived, or when the task is cancelled (by a deadline).
        func firstWrite() async {
            guard writes.isEmpty else { return }
            await withTaskCancellationHandler {
                await withCheckedContinuation { waiter = $0 }
            } onCancel: {
                Task { await self.giveUp() }
            }
        }

        private func giveUp() {
            waiter?.resume()
            waiter = nil
        }
    }

    /// That a second "done" in the same cycle writes nothing is the tracker's (ReminderSchedulerTests).
    @Test("done writes filter_reset = true to the diffuser, through the controller's raw write")
    func doneResetsTheCounter() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-reset-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let database = try GatewayDatabase.open(directory: state)
        let controller = WriteRecorder()
        let service = MaintenanceService(
            controller: controller, library: ProfileLibrary(profiles: [Self.profile]),
            store: SQLiteMaintenanceStore(database: database), webhook: nil, clock: ManualClock(),
            logger: Logger(label: "maintenance-reset-test"))
        let running = Task { await service.run() }
        defer { running.cancel() }
        await service.waitUntilLoaded()
        _ = try await service.markDone(type: "clean", device: Self.diffuser.id)
        try await withDeadline(10, "the reset write") { await controller.firstWrite() }
        let writes = await controller.writes
        #expect(writes.count == 1)
        #expect(writes.first?.0 == Self.diffuser.id)
        #expect(writes.first?.1 == [DataPointID(102)!: .bool(true)])
    }
}
