/// The LEB128 varint of Tuya BLE transport packets: low 7 bits first, 0x80 means
/// "more bytes follow", at most 4 bytes (protocol/TUYA.md §1.3; the SDK encodes with
/// a loop of 4 and HTB rejects longer ones), so values stay below 2^28.
public struct Varint: Hashable, Sendable {
    public static let maxByteCount = 4
    public static let maxValue = (1 << 28) - 1

    public let value: Int
    /// How many bytes the varint occupied when parsed, or its encoded size when built.
    public let byteCount: Int

    public init(_ value: Int) throws(WireError) {
        guard (0...Self.maxValue).contains(value) else {
            throw .lengthOutOfRange(field: "varint value", value: value, limit: Self.maxValue)
        }
        self.value = value
        var count = 1
        var rest = value >> 7
        while rest > 0 {
            count += 1
            rest >>= 7
        }
        byteCount = count
    }

    /// Parses the varint at the start of `bytes`; `byteCount` says where the data after it begins.
    public init(bytes: some Collection<UInt8>) throws(WireError) {
        var result = 0
        var count = 0
        for byte in bytes {
            guard count < Self.maxByteCount else { throw .varintTooLong }
            result |= Int(byte & 0x7F) << (7 * count)
            count += 1
            if byte & 0x80 == 0 {
                value = result
                byteCount = count
                return
            }
        }
        if count == Self.maxByteCount { throw .varintTooLong }
        throw .truncated(what: "varint", needed: count + 1, available: count)
    }

    public var encoded: [UInt8] {
        var out: [UInt8] = []
        var rest = value
        repeat {
            var byte = UInt8(rest & 0x7F)
            rest >>= 7
            if rest > 0 { byte |= 0x80 }
            out.append(byte)
        } while rest > 0
        return out
    }
}
