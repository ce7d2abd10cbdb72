import Foundation
import GRDB
import Testing

@testable import Storage

/// The state columns' timestamps are written without GRDB's `DateFormatter`: the text must
/// be exactly what GRDB writes, and read back as the same instant to the millisecond.
@Suite("stored timestamps")
struct StoredDateTests {
    @Test("a timestamp is the text GRDB writes for the same Date, from 1970 to 2199")
    func sameTextAsGRDB() throws {
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_750_000_123.5),
            Date(timeIntervalSince1970: 951_782_400.999),  // 2000-02-29, leap day of a century year
            Date(timeIntervalSince1970: 4_107_542_399.9994),  // 2100-02-28 23:59:59.999
            Date(timeIntervalSince1970: 1_709_164_800),  // 2024-02-29
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0..<7_258_118_400, using: &generator)))
        }
        for date in dates {
            guard case .string(let expected) = date.databaseValue.storage else {
                Issue.record("GRDB did not write \(date) as text")
                continue
            }
            #expect(StoredDate.text(date) == expected, "\(date.timeIntervalSince1970)")
        }
    }

    @Test("a timestamp reads back through GRDB as the same millisecond")
    func readsBack() throws {
        let date = Date(timeIntervalSince1970: 1_750_000_123.456)
        let text = StoredDate.text(date)
        let read = try #require(Date.fromDatabaseValue(text.databaseValue))
        #expect(abs(read.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001)
    }

    @Test("a timestamp is read back without GRDB as the instant GRDB reads, to the millisecond")
    func readsWhatGRDBReads() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let date = Date(timeIntervalSince1970: Double.random(in: 0..<7_258_118_400, using: &generator))
            let text = StoredDate.text(date)
            let ours = try #require(StoredDate.date(text), "\(text)")
            let grdb = try #require(Date.fromDatabaseValue(text.databaseValue))
            #expect(abs(ours.timeIntervalSince1970 - grdb.timeIntervalSince1970) < 0.0005, "\(text)")
        }
    }

    @Test(
        "the shorter forms GRDB accepts are read too",
        arguments: [
            ("2026-11-27", 1_795_737_600.0), ("2026-11-27 09:15", 1_795_770_900.0),
            ("2026-11-27T09:15:30", 1_795_770_930.0), ("2026-11-27 09:15:30.5", 1_795_770_930.5),
            ("2024-02-29 23:59:59.999999", 1_709_251_199.999999),
        ]
    )
    func shorterForms(text: String, seconds: Double) throws {
        let date = try #require(StoredDate.date(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(
        "text that is no timestamp is refused, not guessed",
        arguments: [
            "", "yesterday", "2025-02-29", "2025-13-01", "2025-00-10", "2025-04-31 10:00", "2025-01-01 24:00",
            "2025-01-01 10:60", "2025-01-01 10:00:60", "2025-01-01 10:00:00.", "2025-01-01X10:00",
            "2025-01-01 10:00:00.1234567890", "2025-1-01", "+2025-01-01", "2025-01-01 10:00:00Z",
            "2025-01-01 10:00:00.000 ", "２０２５-01-01",
        ]
    )
    func refusesNonsense(text: String) {
        #expect(StoredDate.date(text) == nil)
    }

    @Test("a row whose timestamp is damaged reads as no date instead of stopping the process")
    func damagedColumn() throws {
        let queue = try DatabaseQueue()
        let row = try queue.read { db in
            try #require(try Row.fetchOne(db, sql: "SELECT 'not a date' AS at, NULL AS never, 1.5 AS unix"))
        }
        #expect(row.date("at") == nil)
        #expect(row.date("never") == nil)
        #expect(row.date("unix") == Date(timeIntervalSince1970: 1.5))
    }

    @Test(
        "a date beyond years 1-9999 (a hand-edited number read back and saved again) is written as the nearest one",
        arguments: [
            (1e300, "9999-12-31 23:59:59.999"), (-1e300, "0001-01-01 00:00:00.000"),
            (Double.infinity, "1970-01-01 00:00:00.000"), (Double.nan, "1970-01-01 00:00:00.000"),
        ])
    func outOfRange(seconds: Double, expected: String) throws {
        let text = StoredDate.text(Date(timeIntervalSince1970: seconds))
        #expect(text == expected)
        #expect(StoredDate.date(text) != nil, "it reads back")
    }
}
