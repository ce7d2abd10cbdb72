import Timing

/// The one contract in front of every radio. The timer engine and the maintenance
/// scheduler drive devices only through it and never learn whether a device speaks
/// MQTT or BLE (ARCHITECTURE.md "The Timer/Tuya boundary").
public protocol TuyaControllerProtocol: Sendable {
    /// Every paired device, sorted by name.
    func devices() async -> [TuyaDevice]

    /// One device by id.
    func device(_ id: DeviceID) async -> TuyaDevice?

    func status(of id: DeviceID) async -> ConnectionStatus?

    /// The last state the device itself reported.
    func confirmedState(of id: DeviceID) async -> DeviceState?

    /// The confirmed state with every write not yet confirmed laid over it: what the
    /// device will look like once it catches up.
    func pendingState(of id: DeviceID) async -> DeviceState?

    /// Writes every field of the command in one frame and returns the state the device
    /// confirms. Throws `ControllerError.confirmationTimeout` when the device does not
    /// confirm in time; the command then stays pending and is re-applied later.
    @discardableResult
    func send(_ command: DeviceCommand, to id: DeviceID) async throws -> DeviceState

    /// Writes data points the device's profile declares, as they are, in one frame, and
    /// returns the state the device confirms: for a write no typed command expresses (a
    /// maintenance rule's `reset_dp`). Throws `ControllerError.invalidCommand` for a DP the
    /// profile does not declare, a read-only one, or a value that does not fit it. Write-only
    /// DPs, which no report confirms, go out in the next frame without a wait and are not
    /// re-applied after a reconnect; the others are confirmed by the device's report and
    /// re-applied as `send`'s.
    @discardableResult
    func write(_ dataPoints: DataPoints, to id: DeviceID) async throws -> DeviceState

    /// A new subscription to controller events; it ends when the controller stops.
    func events() -> Mailbox<ControllerEvent>

    /// The command as close as the device can show it (a colour temperature beyond its
    /// range at the nearest end, a field it has no data point for left out), with what was
    /// changed. Timer presets go through this; a person's own values are not changed.
    func fitted(_ command: DeviceCommand, to id: DeviceID) async -> (command: DeviceCommand, adjustments: [String])
}

extension TuyaControllerProtocol {
    /// A registry that knows no profiles cannot check a raw write, so it refuses one.
    public func write(_ dataPoints: DataPoints, to id: DeviceID) async throws -> DeviceState {
        throw ControllerError.invalidCommand(device: id, reason: "this registry takes typed commands only")
    }

    /// A registry that knows no profiles sends commands as they are.
    public func fitted(_ command: DeviceCommand, to id: DeviceID) async -> (
        command: DeviceCommand, adjustments: [String]
    ) {
        (command, [])
    }
}
