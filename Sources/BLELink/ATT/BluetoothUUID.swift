/// A Bluetooth UUID: 128 bits, with the SIG's 16-bit short form for UUIDs built on the
/// Bluetooth Base UUID `0000xxxx-0000-1000-8000-00805F9B34FB` (Core spec Vol 3 Part B §2.5.1).
///
/// A 16-bit UUID and its 128-bit expansion are the same UUID and compare equal, so a device that
/// declares `2b10` in 128-bit form is still found. On the ATT wire UUIDs are little-endian: the
/// bytes of the canonical string in reverse order.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes in canonical (big-endian, string) order.
    public let bytes: [UInt8]

    private static let base: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB,
    ]

    /// A SIG-assigned 16-bit UUID, expanded on the base UUID.
    public init(_ short: UInt16) {
        var bytes = Self.base
        bytes[2] = UInt8(short >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: short)
        self.bytes = bytes
    }

    /// 16 bytes in canonical order; nil for any other count.
    public init?(bigEndian bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A UUID field as it appears in an ATT PDU: 2 or 16 little-endian bytes; nil otherwise.
    public init?(littleEndian field: [UInt8]) {
        switch field.count {
        case 2: self.init(UInt16(field[0]) | UInt16(field[1]) << 8)
        case 16: self.init(bigEndian: field.reversed())
        default: return nil
        }
    }

    /// Parses `1910`, `0x1910` or `00002b10-0000-1000-8000-00805f9b34fb` (any case).
    public init?(_ text: String) {
        var hex = text.lowercased()
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        if hex.count == 4, let short = UInt16(hex, radix: 16) {
            self.init(short)
            return
        }
        let groups = hex.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let digits = Array(groups.joined())
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bigEndian: bytes)
    }

    /// The 16-bit form, when this UUID is built on the base UUID.
    public var shortValue: UInt16? {
        guard bytes[0] == 0, bytes[1] == 0, Array(bytes[4...]) == Array(Self.base[4...]) else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The PDU field: 2 bytes when a 16-bit form exists (what servers compare against and what
    /// ATT requires where it can), otherwise 16, little-endian either way.
    public var littleEndianField: [UInt8] {
        if let short = shortValue { return [UInt8(truncatingIfNeeded: short), UInt8(short >> 8)] }
        return bytes.reversed()
    }

    /// `0x2902` for short UUIDs, the lowercase 8-4-4-4-12 form for the others.
    public var description: String {
        if let short = shortValue { return ATTHex.handle(short) }
        let hex = bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}

extension BluetoothUUID {
    /// GATT attribute types (Assigned Numbers §3.5, §3.7).
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
}
