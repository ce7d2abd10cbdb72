/// A typed data point value in its domain form.
///
/// Enums are held by label (`"large"`): MQTT/LAN JSON carries the label, BLE carries
/// the label's index in the profile's value list; the transport codecs convert
/// (protocol/TUYA.md §1.8, §2.6).
public enum DPValue: Hashable, Sendable, CustomStringConvertible {
    case raw([UInt8])
    case bool(Bool)
    /// Tuya "value": a signed 32-bit integer.
    case value(Int32)
    case string(String)
    case enumeration(String)
    /// Up to 32 fault/flag bits.
    case bitmap(UInt32)

    public var type: DataPointType {
        switch self {
        case .raw: .raw
        case .bool: .bool
        case .value: .value
        case .string: .string
        case .enumeration: .enumeration
        case .bitmap: .bitmap
        }
    }

    public var description: String {
        switch self {
        case .raw(let bytes): "raw(\(bytes.map { String(format2: $0) }.joined()))"
        case .bool(let b): "\(b)"
        case .value(let v): "\(v)"
        case .string(let s): "\"\(s)\""
        case .enumeration(let e): "enum(\(e))"
        case .bitmap(let m): "bitmap(0x\(String(m, radix: 16)))"
        }
    }
}

extension String {
    /// Two lowercase hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self.init([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// Data point values keyed by id, as a report or a batch of writes carries them.
public typealias DataPoints = [DataPointID: DPValue]
