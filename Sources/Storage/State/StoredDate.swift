import Foundation
import TuyaCore

/// The text GRDB stores a `Date` as (`yyyy-MM-dd HH:mm:ss.SSS`, UTC; GRDB reads it back
/// as the same `Date` to the millisecond), written by arithmetic: GRDB's own conversion
/// goes through a `DateFormatter`, which loads ICU's calendar data into the daemon and
/// costs more than the row it stamps.
enum StoredDate {
    static func text(_ date: Date) -> String {
        // The nearest millisecond, as GRDB's formatter rounds.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, msOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        var out: [UInt8] = []
        out.reserveCapacity(23)
        append(year, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &out)
        out.append(UInt8(ascii: " "))
        append(hour, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(minute, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(second, digits: 2, to: &out)
        out.append(UInt8(ascii: "."))
        append(millisecond, digits: 3, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a / b - (a % b < 0 ? 1 : 0)
        return (quotient, a - quotient * b)
    }

    private static func append(_ value: Int64, digits: Int, to out: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
