/// A bounds-checked cursor over an untrusted BLE body: every read checks the
/// remaining length first, so a short or hostile buffer throws `.truncated`
/// instead of trapping.
struct BLEByteReader {
    let bytes: [UInt8]
    let what: String
    private(set) var offset = 0

    init(_ bytes: some Collection<UInt8>, what: String) {
        self.bytes = Array(bytes)
        self.what = what
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func read(_ count: Int, _ field: String) throws(WireError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw .truncated(what: "\(what) \(field)", needed: offset + max(count, 0), available: bytes.count)
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func readUInt8(_ field: String) throws(WireError) -> UInt8 {
        try read(1, field)[0]
    }

    mutating func readUInt16(_ field: String) throws(WireError) -> UInt16 {
        let b = try read(2, field)
        return UInt16(b[0]) << 8 | UInt16(b[1])
    }

    mutating func readUInt32(_ field: String) throws(WireError) -> UInt32 {
        let b = try read(4, field)
        return UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
    }

    mutating func readRest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Throws when bytes are left over: a fixed-size body with trailing bytes is malformed.
    func expectEnd() throws(WireError) {
        guard isAtEnd else {
            throw .lengthOutOfRange(field: "\(what) length", value: bytes.count, limit: offset)
        }
    }
}

/// Big-endian appends for BLE bodies (all Tuya BLE integers are big-endian, protocol/TUYA.md).
enum BLEBigEndian {
    static func bytes(_ value: UInt16) -> [UInt8] {
        [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    static func bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Text helpers for BLE bodies, without Foundation.
enum BLEText {
    /// Strict UTF-8 decoding: nil for any invalid sequence (no replacement characters).
    static func utf8(_ bytes: [UInt8]) -> String? {
        var iterator = bytes.makeIterator()
        var codec = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
