/// The two GATT layouts of Tuya BLE devices (protocol/TUYA.md §1.1): the service and the
/// write and notify characteristics. All values are 20-byte Tuya transport packets (§1.3).
public enum TuyaGATTLayout: String, CaseIterable, Hashable, Sendable {
    /// Classic Tuya BLE SDK devices ("A201" adverts): service 0x1910, write 0x2b11, notify 0x2b10.
    case a201
    /// TuyaOS devices ("FD50" adverts): service 0xFD50 with 128-bit characteristics.
    case fd50

    public var serviceUUID: BluetoothUUID {
        switch self {
        case .a201: BluetoothUUID(0x1910)
        case .fd50: BluetoothUUID(0xFD50)
        }
    }

    /// Written with Write Command ("write without response").
    public var writeCharacteristic: BluetoothUUID {
        switch self {
        case .a201: BluetoothUUID(0x2B11)
        case .fd50: Self.fd50Characteristic(0x01)
        }
    }

    /// Notifies the device's packets once its CCCD holds 0x0001.
    public var notifyCharacteristic: BluetoothUUID {
        switch self {
        case .a201: BluetoothUUID(0x2B10)
        case .fd50: Self.fd50Characteristic(0x02)
        }
    }

    /// `0000000n-0000-1001-8001-00805f9b07d0`: Tuya's own base, not the Bluetooth one.
    private static func fd50Characteristic(_ number: UInt8) -> BluetoothUUID {
        BluetoothUUID(bigEndian: [0, 0, 0, number, 0, 0, 0x10, 0x01, 0x80, 0x01, 0x00, 0x80, 0x5F, 0x9B, 0x07, 0xD0])!
    }
}

/// The Tuya service as found on one device: what `GATTClient` writes to and listens on.
public struct TuyaGATTService: Hashable, Sendable {
    /// Which characteristic pair the device exposes.
    public var layout: TuyaGATTLayout
    public var service: GATTService
    public var write: GATTCharacteristic
    public var notify: GATTCharacteristic
    /// The notify characteristic's Client Characteristic Configuration descriptor (0x2902).
    public var configurationHandle: UInt16

    public init(
        layout: TuyaGATTLayout, service: GATTService, write: GATTCharacteristic, notify: GATTCharacteristic,
        configurationHandle: UInt16
    ) {
        self.layout = layout
        self.service = service
        self.write = write
        self.notify = notify
        self.configurationHandle = configurationHandle
    }
}
