import TuyaCore
import YoullTestSupport
import Timing

/// A fake `TuyaControllerProtocol` for the runner's unit tests: it records every command
/// with the test clock's time, answers status and confirmed state from what the test set,
/// and can hold a status request until the test releases it.
actor RecordingController: TuyaControllerProtocol {
    struct Sent: Hashable, Sendable {
        var device: DeviceID
        var command: DeviceCommand
        /// The manual clock's time when the command arrived.
        var at: Duration
    }

    private let clock: ManualClock
    private var registry: [DeviceID: TuyaDevice] = [:]
    private var availability: [DeviceID: Availability] = [:]
    private var confirmed: [DeviceID: DeviceState] = [:]
    private var failures: [DeviceID: ControllerError] = [:]
    private(set) var sent: [Sent] = []
    private var holdingStatus = false
    private var heldStatus: [CheckedContinuation<Void, Never>] = []
    private var heldWaiters: [CheckedContinuation<Void, Never>] = []
    private var sendWaiters: [(DeviceCommand, DeviceID, CheckedContinuation<Void, Never>)] = []
    private var holdingSends = false
    private var heldSends: [CheckedContinuation<Void, Never>] = []

    init(clock: ManualClock, devices: [TuyaDevice]) {
        self.clock = clock
        for device in devices {
            registry[device.id] = device
            availability[device.id] = .online
        }
    }

    func setAvailability(_ value: Availability, of id: DeviceID) { availability[id] = value }
    func setConfirmed(_ state: DeviceState, of id: DeviceID) { confirmed[id] = state }
    func failSends(to id: DeviceID, with error: ControllerError) { failures[id] = error }
    func sent(to id: DeviceID) -> [Sent] { sent.filter { $0.device == id } }

    /// From now on, `status(of:)` waits until `releaseStatus()`.
    func holdStatus() { holdingStatus = true }

    func releaseStatus() {
        holdingStatus = false
        for continuation in heldStatus { continuation.resume() }
        heldStatus.removeAll()
    }

    /// From now on, `send` records the command and then waits until `releaseSends()`: a device
    /// slow to confirm.
    func holdSends() { holdingSends = true }

    func releaseSends() {
        holdingSends = false
        for continuation in heldSends { continuation.resume() }
        heldSends.removeAll()
    }

    /// Returns once `command` has been sent to `id` (at once when it was).
    func waitForSend(of command: DeviceCommand, to id: DeviceID) async {
        if sent.contains(where: { $0.command == command && $0.device == id }) { return }
        await withCheckedContinuation { sendWaiters.append((command, id, $0)) }
    }

    /// Returns once a status request is being held.
    func waitUntilStatusHeld() async {
        if !heldStatus.isEmpty { return }
        await withCheckedContinuation { heldWaiters.append($0) }
    }

    // MARK: TuyaControllerProtocol

    func devices() -> [TuyaDevice] { registry.values.sorted { $0.name < $1.name } }
    func device(_ id: DeviceID) -> TuyaDevice? { registry[id] }

    func status(of id: DeviceID) async -> ConnectionStatus? {
        if holdingStatus {
            await withCheckedContinuation { continuation in
                heldStatus.append(continuation)
                for waiter in heldWaiters { waiter.resume() }
                heldWaiters.removeAll()
            }
        }
        return availability[id].map { ConnectionStatus(availability: $0) }
    }

    func confirmedState(of id: DeviceID) -> DeviceState? { confirmed[id] }
    func pendingState(of id: DeviceID) -> DeviceState? { confirmed[id] }

    func send(_ command: DeviceCommand, to id: DeviceID) async throws -> DeviceState {
        guard registry[id] != nil else { throw ControllerError.unknownDevice(id.rawValue) }
        sent.append(Sent(device: id, command: command, at: clock.now.offset))
        let waiting = sendWaiters.filter { $0.0 == command && $0.1 == id }
        sendWaiters.removeAll { $0.0 == command && $0.1 == id }
        for waiter in waiting { waiter.2.resume() }
        if holdingSends { await withCheckedContinuation { heldSends.append($0) } }
        if let failure = failures[id] { throw failure }
        if availability[id] != .online { throw ControllerError.confirmationTimeout(device: id, pending: []) }
        return confirmed[id] ?? .light(LightState())
    }

    nonisolated func events() -> Mailbox<ControllerEvent> { .finished() }
}

func light(_ id: String, name: String? = nil) -> TuyaDevice {
    TuyaDevice(id: DeviceID(id)!, name: name ?? id, profileID: "test-light", category: .light, transport: .mqtt)
}

func diffuser(_ id: String) -> TuyaDevice {
    TuyaDevice(id: DeviceID(id)!, name: id, profileID: "test-diffuser", category: .diffuser, transport: .mqtt)
}

extension Duration {
    static func minutes(_ value: Int) -> Duration { .seconds(value * 60) }
}
