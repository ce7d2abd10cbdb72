/// The answer to 0x8011 (protocol/TUYA.md §1.6): 13 ASCII digits of unix time in
/// milliseconds, then the UTC offset as a signed 16-bit count of hours × 100
/// (UTC+8 → 800, UTC+5:30 → 550). Built from a time the caller passes in, never
/// from the clock. The SDK asks for it right after pairing; unanswered, the
/// device's timers stay unset (§1.9).
public struct BLETimeStringReply: Hashable, Sendable {
    public static let length = 15
    static let maxMilliseconds: Int64 = 9_999_999_999_999

    public let unixMilliseconds: Int64
    public let timezoneHundredths: Int16

    public init(unixMilliseconds: Int64, utcOffsetSeconds: Int) throws(WireError) {
        guard (0...Self.maxMilliseconds).contains(unixMilliseconds) else {
            throw .invalidField(field: "unix time", reason: "\(unixMilliseconds) ms does not fit 13 digits")
        }
        self.unixMilliseconds = unixMilliseconds
        timezoneHundredths = try BLETimeZone.hundredths(utcOffsetSeconds)
    }

    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == Self.length else {
            throw .lengthOutOfRange(field: "BLE time reply length", value: bytes.count, limit: Self.length)
        }
        unixMilliseconds = try BLETimeZone.digits(Array(bytes[0..<13]))
        timezoneHundredths = Int16(bitPattern: UInt16(bytes[13]) << 8 | UInt16(bytes[14]))
    }

    public var encoded: [UInt8] {
        BLETimeZone.thirteenDigits(unixMilliseconds) + BLEBigEndian.bytes(UInt16(bitPattern: timezoneHundredths))
    }
}

/// Shared encodings of the BLE time bodies.
enum BLETimeZone {
    /// UTC offsets run from −12:00 to +14:00.
    static func hundredths(_ utcOffsetSeconds: Int) throws(WireError) -> Int16 {
        guard (-12 * 3600...14 * 3600).contains(utcOffsetSeconds) else {
            throw .invalidField(field: "UTC offset", reason: "\(utcOffsetSeconds) s is outside −12 h…+14 h")
        }
        // hours × 100 = seconds / 3600 × 100 = seconds / 36.
        return Int16(utcOffsetSeconds / 36)
    }

    static func thirteenDigits(_ value: Int64) -> [UInt8] {
        let digits = Array(String(value).utf8)
        return [UInt8](repeating: 0x30, count: max(0, 13 - digits.count)) + digits
    }

    static func digits(_ bytes: [UInt8]) throws(WireError) -> Int64 {
        var value: Int64 = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else {
                throw .invalidField(field: "time", reason: "expected 13 ASCII digits")
            }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }
}
