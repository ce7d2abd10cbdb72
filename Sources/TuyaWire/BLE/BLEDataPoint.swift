import TuyaCore

/// One data point as BLE carries it: id, type code and the raw value bytes of a KLV
/// entry (protocol/TUYA.md §1.8). The payload length always fits the type: bool 1,
/// value 4, enum and bitmap 1, 2 or 4 bytes; string and raw any length (the list
/// format caps it).
public struct BLEDataPoint: Hashable, Sendable, CustomStringConvertible {
    public let id: DataPointID
    public let type: DataPointType
    public let payload: [UInt8]

    /// Checks the payload length against the type.
    public init(id: DataPointID, type: DataPointType, payload: [UInt8]) throws(WireError) {
        let valid: Bool
        switch type {
        case .bool: valid = payload.count == 1
        case .value: valid = payload.count == 4
        case .enumeration, .bitmap: valid = [1, 2, 4].contains(payload.count)
        case .string, .raw: valid = payload.count <= Int(UInt16.max)
        }
        guard valid else {
            throw .invalidDataPoint(
                id: id.intValue, reason: "\(payload.count) bytes is not a valid \(type.name) length")
        }
        self.id = id
        self.type = type
        self.payload = payload
    }

    private init(unchecked id: DataPointID, _ type: DataPointType, _ payload: [UInt8]) {
        self.id = id
        self.type = type
        self.payload = payload
    }

    public static func bool(_ id: DataPointID, _ value: Bool) -> BLEDataPoint {
        BLEDataPoint(unchecked: id, .bool, [value ? 1 : 0])
    }

    /// A Tuya "value": signed 32-bit, big-endian.
    public static func value(_ id: DataPointID, _ value: Int32) -> BLEDataPoint {
        BLEDataPoint(unchecked: id, .value, BLEBigEndian.bytes(UInt32(bitPattern: value)))
    }

    /// UTF-8 without terminator.
    public static func string(_ id: DataPointID, _ value: String) throws(WireError) -> BLEDataPoint {
        try BLEDataPoint(id: id, type: .string, payload: Array(value.utf8))
    }

    public static func raw(_ id: DataPointID, _ bytes: [UInt8]) throws(WireError) -> BLEDataPoint {
        try BLEDataPoint(id: id, type: .raw, payload: bytes)
    }

    /// An enum travels as the label's index in the product's list, in 1 byte, or 2/4
    /// bytes when it does not fit (HTB `_encode_datapoints`).
    public static func enumeration(_ id: DataPointID, index: Int) throws(WireError) -> BLEDataPoint {
        guard index >= 0, index <= Int(UInt32.max) else {
            throw .invalidDataPoint(id: id.intValue, reason: "enum index \(index) is out of range")
        }
        return BLEDataPoint(unchecked: id, .enumeration, minimalBytes(UInt32(index)))
    }

    /// `byteCount` 1, 2 or 4; by default the fewest that hold `bits`.
    public static func bitmap(_ id: DataPointID, _ bits: UInt32, byteCount: Int? = nil) throws(WireError)
        -> BLEDataPoint
    {
        let minimal = minimalBytes(bits)
        let count = byteCount ?? minimal.count
        guard [1, 2, 4].contains(count), count >= minimal.count else {
            throw .invalidDataPoint(
                id: id.intValue, reason: "bitmap 0x\(String(bits, radix: 16)) does not fit \(count) bytes")
        }
        return BLEDataPoint(unchecked: id, .bitmap, Array(BLEBigEndian.bytes(bits).suffix(count)))
    }

    public var boolValue: Bool? { type == .bool ? payload[0] != 0 : nil }
    public var intValue: Int32? { type == .value ? Int32(bitPattern: unsignedValue) : nil }
    public var enumIndex: Int? { type == .enumeration ? Int(unsignedValue) : nil }
    public var bitmapValue: UInt32? { type == .bitmap ? unsignedValue : nil }
    public var stringValue: String? { type == .string ? BLEText.utf8(payload) : nil }

    /// Builds the BLE form of a domain value, turning an enum label into its index in
    /// the profile's list (protocol/TUYA.md §1.8).
    public init(_ value: DPValue, spec: DataPointSpec) throws(WireError) {
        guard value.type == spec.type else {
            throw .invalidDataPoint(
                id: spec.id.intValue, reason: "profile says \(spec.type.name), value is \(value.type.name)")
        }
        switch value {
        case .raw(let bytes): self = try .raw(spec.id, bytes)
        case .bool(let b): self = .bool(spec.id, b)
        case .value(let v): self = .value(spec.id, v)
        case .string(let s): self = try .string(spec.id, s)
        case .bitmap(let bits): self = try .bitmap(spec.id, bits)
        case .enumeration(let label):
            guard let index = spec.enumIndex(of: label) else {
                throw .invalidDataPoint(
                    id: spec.id.intValue, reason: "enum label \"\(label)\" is not in the profile (\(spec.code))")
            }
            self = try .enumeration(spec.id, index: index)
        }
    }

    /// The domain value, turning an enum index back into the profile's label.
    public func value(spec: DataPointSpec) throws(WireError) -> DPValue {
        guard spec.id == id else {
            throw .invalidDataPoint(id: id.intValue, reason: "profile entry is for \(spec.id)")
        }
        guard spec.type == type else {
            throw .invalidDataPoint(id: id.intValue, reason: "profile says \(spec.type.name), device sent \(type.name)")
        }
        switch type {
        case .raw: return .raw(payload)
        case .bool: return .bool(payload[0] != 0)
        case .value: return .value(Int32(bitPattern: unsignedValue))
        case .bitmap: return .bitmap(unsignedValue)
        case .string:
            guard let string = BLEText.utf8(payload) else {
                throw .invalidDataPoint(id: id.intValue, reason: "string is not valid UTF-8")
            }
            return .string(string)
        case .enumeration:
            let index = Int(unsignedValue)
            guard let label = spec.enumLabel(at: index) else {
                throw .invalidDataPoint(
                    id: id.intValue,
                    reason: "enum index \(index) is not among the \(spec.values.count) labels of \(spec.code)")
            }
            return .enumeration(label)
        }
    }

    /// `id ‖ type ‖ len ‖ value`, `len` 1 byte (v3) or 2 bytes BE (v4). `BLEDataPointList`
    /// has checked that the payload fits the length field.
    func klv(format: BLEDataPointList.Format) -> [UInt8] {
        var out = [id.rawValue, type.rawValue]
        switch format {
        case .v3: out.append(UInt8(truncatingIfNeeded: payload.count))
        case .v4: out += BLEBigEndian.bytes(UInt16(truncatingIfNeeded: payload.count))
        }
        return out + payload
    }

    public var description: String {
        "\(id)(\(type.name): \(BLEText.hex(payload)))"
    }

    private var unsignedValue: UInt32 {
        payload.reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func minimalBytes(_ value: UInt32) -> [UInt8] {
        let count = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : 4
        return Array(BLEBigEndian.bytes(value).suffix(count))
    }
}
