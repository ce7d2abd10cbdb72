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
}
