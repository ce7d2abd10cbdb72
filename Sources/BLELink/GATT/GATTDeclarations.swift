/// A primary service: its UUID and the handles it spans, as Read By Group Type reports it.
public struct GATTService: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var startHandle: UInt16
    public var endHandle: UInt16

    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    public var description: String {
        "\(uuid) [\(ATTHex.handle(startHandle))–\(ATTHex.handle(endHandle))]"
    }
}

/// The properties byte of a characteristic declaration (Core spec Vol 3 Part G §3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = GATTCharacteristicProperties(rawValue: 0x01)
    public static let read = GATTCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 0x04)
    public static let write = GATTCharacteristicProperties(rawValue: 0x08)
    public static let notify = GATTCharacteristicProperties(rawValue: 0x10)
    public static let indicate = GATTCharacteristicProperties(rawValue: 0x20)
}

/// A characteristic declaration (attribute type 0x2803): properties, the handle of the value,
/// and the characteristic's UUID.
public struct GATTCharacteristic: Hashable, Sendable {
    public var declarationHandle: UInt16
    public var properties: GATTCharacteristicProperties
    public var valueHandle: UInt16
    public var uuid: BluetoothUUID

    public init(
        declarationHandle: UInt16, properties: GATTCharacteristicProperties, valueHandle: UInt16, uuid: BluetoothUUID
    ) {
        self.declarationHandle = declarationHandle
        self.properties = properties
        self.valueHandle = valueHandle
        self.uuid = uuid
    }

    /// The declaration's value, as a server stores it: properties, value handle (LE), UUID (LE).
    public var declarationValue: [UInt8] {
        var bytes = [properties.rawValue]
        bytes.appendLittleEndian(valueHandle)
        return bytes + uuid.littleEndianField
    }

    /// Parses a declaration's value: 5 bytes (16-bit UUID) or 19 (128-bit); nil otherwise.
    public init?(declarationHandle: UInt16, value: [UInt8]) {
        guard value.count == 5 || value.count == 19,
            let uuid = BluetoothUUID(littleEndian: Array(value[3...]))
        else { return nil }
        self.init(
            declarationHandle: declarationHandle, properties: GATTCharacteristicProperties(rawValue: value[0]),
            valueHandle: UInt16(value[1]) | UInt16(value[2]) << 8, uuid: uuid)
    }
}
