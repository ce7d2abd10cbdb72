import TuyaCore

/// The answer to 0x8012 (protocol/TUYA.md §1.6): local date and time as
/// `yy mon day hour min sec weekday` (one byte each, year % 100) and the UTC offset
/// as int16 hours × 100. Weekday counts Monday = 0 like HTB (Python `tm_wday`); the
/// base is unverified on devices. Built from a time the caller passes in, never the
/// clock.
public struct BLETimeDateReply: Hashable, Sendable {
    public static let length = 9

    public let year: UInt8
    public let month: UInt8
    public let day: UInt8
    public let hour: UInt8
    public let minute: UInt8
    public let second: UInt8
    /// Monday = 0 … Sunday = 6.
    public let weekday: UInt8
    public let timezoneHundredths: Int16

    public init(unixMilliseconds: Int64, utcOffsetSeconds: Int) throws(WireError) {
        timezoneHundredths = try BLETimeZone.hundredths(utcOffsetSeconds)
        guard (0...BLETimeStringReply.maxMilliseconds).contains(unixMilliseconds) else {
            throw .invalidField(field: "unix time", reason: "\(unixMilliseconds) ms is out of range")
        }
        let local = unixMilliseconds / 1000 + Int64(utcOffsetSeconds)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (y, m, d) = CivilDate.date(daysSinceEpoch: days)
        year = UInt8(y % 100)
        month = UInt8(m)
        day = UInt8(d)
        hour = UInt8(secondOfDay / 3600)
        minute = UInt8(secondOfDay % 3600 / 60)
        second = UInt8(secondOfDay % 60)
        // 1970-01-01 was a Thursday, index 3 when Monday is 0.
        weekday = UInt8(((days % 7) + 7 + 3) % 7)
    }

    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == Self.length else {
            throw .lengthOutOfRange(field: "BLE date reply length", value: bytes.count, limit: Self.length)
        }
        (year, month, day, hour, minute, second, weekday) = (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6]
        )
        timezoneHundredths = Int16(bitPattern: UInt16(bytes[7]) << 8 | UInt16(bytes[8]))
    }

    public var encoded: [UInt8] {
        [year, month, day, hour, minute, second, weekday] + BLEBigEndian.bytes(UInt16(bitPattern: timezoneHundredths))
    }
}
