import TuyaCore
import Timing

/// The controller of a timer run without one (`TimerModuleInterface.tuyaController` nil):
/// no devices, so a session plans no device cues and never sends anything.
struct NoDevices: TuyaControllerProtocol {
    func devices() async -> [TuyaDevice] { [] }
    func device(_ id: DeviceID) async -> TuyaDevice? { nil }
    func status(of id: DeviceID) async -> ConnectionStatus? { nil }
    func confirmedState(of id: DeviceID) async -> DeviceState? { nil }
    func pendingState(of id: DeviceID) async -> DeviceState? { nil }

    func send(_ command: DeviceCommand, to id: DeviceID) async throws -> DeviceState {
        throw ControllerError.unknownDevice(id.rawValue)
    }

    func events() -> Mailbox<ControllerEvent> { .finished() }
}
