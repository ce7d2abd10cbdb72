import TuyaCore
import TuyaWire

/// The link that owns one paired device's connection, whichever radio it uses. The
/// registry holds these, so everything above it (`TuyaControllerProtocol`, the bridge,
/// sessions, reminders) treats Wi-Fi and BLE devices alike.
enum DeviceLink: Sendable {
    case mqtt(MQTTDeviceLink)
    case ble(BLEDeviceLink)

    var status: ConnectionStatus {
        get async {
            switch self {
            case .mqtt(let link): await link.status
            case .ble(let link): await link.status
            }
        }
    }

    var confirmedState: DeviceState {
        get async {
            switch self {
            case .mqtt(let link): await link.confirmedState
            case .ble(let link): await link.confirmedState
            }
        }
    }

    var pendingState: DeviceState {
        get async {
            switch self {
            case .mqtt(let link): await link.pendingState
            case .ble(let link): await link.pendingState
            }
        }
    }

    var reported: DataPoints {
        get async {
            switch self {
            case .mqtt(let link): await link.reported
            case .ble(let link): await link.reported
            }
        }
    }

    var mqtt: MQTTDeviceLink? {
        if case .mqtt(let link) = self { link } else { nil }
    }

    var ble: BLEDeviceLink? {
        if case .ble(let link) = self { link } else { nil }
    }

    func send(_ writes: DataPoints) async throws -> DeviceState {
        switch self {
        case .mqtt(let link): try await link.send(writes)
        case .ble(let link): try await link.send(writes)
        }
    }

    func refresh() async {
        switch self {
        case .mqtt(let link): await link.refresh()
        case .ble(let link): await link.refresh()
        }
    }

    func rename(_ name: String) async {
        switch self {
        case .mqtt(let link): await link.rename(name)
        case .ble(let link): await link.rename(name)
        }
    }

    func stop() async {
        switch self {
        case .mqtt(let link): await link.stop()
        case .ble(let link): await link.stop()
        }
    }
}
