import Foundation
import GRDB
import TuyaCore

/// The text GRDB stores a `Date` as (`yyyy-MM-dd HH:mm:ss.SSS`, UTC; GRDB reads it back
/// as the same `Date` to the millisecond), written by arithmetic: GRDB's own conversion
/// goes through a `DateFormatter`, which loads ICU's calendar data into the daemon and
/// costs more than the row it stamps.
enum StoredDate {
    static func text(_ date: Date) -> String {
        // The text has four digits for the year: a date outside years 1–9999 (a hand-edited row
        // read back and saved again) is written as the nearest one, never a trap converting it.
        let seconds = date.timeIntervalSince1970
        let bounded = seconds.isFinite ? min(max(seconds, earliestSeconds), latestSeconds) : 0
        // The nearest millisecond, as GRDB's formatter rounds.
        let milliseconds = Int64((bounded * 1000).rounded())
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

    /// 0001-01-01 00:00:00.000 and 9999-12-31 23:59:59.999 UTC, in seconds since 1970.
    static let earliestSeconds: TimeInterval = -62_135_596_800
    static let latestSeconds: TimeInterval = 253_402_300_799.999

    /// Reads the text `text(_:)` writes, and its shorter forms (`yyyy-MM-dd`, `… HH:mm`,
    /// `… HH:mm:ss`, 1–9 fraction digits, `T` for the space), as UTC; nil for anything else,
    /// including a date that does not exist (2025-02-30).
    static func date(_ text: String) -> Date? {
        var reader = DigitReader(bytes: Array(text.utf8))
        guard let year = reader.number(digits: 4), reader.skip("-"), let month = reader.number(digits: 2),
            reader.skip("-"), let day = reader.number(digits: 2), (1...12).contains(month), day >= 1,
            day <= daysIn(month: month, year: year)
        else { return nil }
        var milliseconds = CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400_000
        if reader.atEnd { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        guard reader.skip(" ") || reader.skip("T"), let hour = reader.number(digits: 2), hour < 24,
            reader.skip(":"), let minute = reader.number(digits: 2), minute < 60
        else { return nil }
        milliseconds += hour * 3_600_000 + minute * 60_000
        var fraction = 0.0
        if reader.skip(":") {
            guard let second = reader.number(digits: 2), second < 60 else { return nil }
            milliseconds += second * 1000
            if reader.skip(".") {
                guard let (digits, count) = reader.fraction(), count <= 9 else { return nil }
                fraction = Double(digits) / pow(10, Double(count))
            }
        }
        guard reader.atEnd else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000 + fraction)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private struct DigitReader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `digits` ASCII digits.
        mutating func number(digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + digits)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += digits
            return value
        }

        /// One or more digits, with how many there were.
        mutating func fraction() -> (Int64, Int)? {
            let start = index
            var value: Int64 = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), index - start < 18 {
                value = value * 10 + Int64(bytes[index] - 0x30)
                index += 1
            }
            return index > start ? (value, index - start) : nil
        }
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

/// A `Date` column read and written as `StoredDate` text instead of through GRDB's `Date`
/// conversion, whose `DateFormatter` (writing) and `Calendar` (reading) load ICU's locale and
/// calendar data into the daemon. The text is the one GRDB writes, so rows written before
/// and after read the same; a value in another form GRDB understands (a number, a time
/// zone suffix) is still read through GRDB.
struct StoredInstant: DatabaseValueConvertible {
    let date: Date

    init(_ date: Date) { self.date = date }

    var databaseValue: DatabaseValue { StoredDate.text(date).databaseValue }

    static func fromDatabaseValue(_ value: DatabaseValue) -> StoredInstant? {
        if case .string(let text) = value.storage, let date = StoredDate.date(text) {
            return StoredInstant(date)
        }
        return Date.fromDatabaseValue(value).map(StoredInstant.init)
    }
}

extension Row {
    /// The date in `column`; nil when it is NULL or holds no date (a hand-edited row), where
    /// GRDB's own typed read would stop the process.
    func date(_ column: String) -> Date? {
        StoredInstant.fromDatabaseValue(self[column] as DatabaseValue)?.date
    }
}
