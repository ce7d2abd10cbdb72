import Foundation
import GRDB
import Testing
import TuyaCore

@testable import Storage

/// Real parts: SQLite database files in a temporary directory.
@Suite("desired and confirmed state")
struct DeviceStateTests {
    @Test("every DPValue type round-trips exactly through desired and confirmed state")
    func everyType() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        try await database.saveDesired(Fixture.everyType, for: Fixture.lampID)
        let confirmed: DataPoints = [Fixture.dp(7): .bitmap(5), Fixture.dp(8): .raw(Array(0...255))]
        let reported = Date(timeIntervalSince1970: 1_750_000_123.5)
        try await database.saveConfirmed(confirmed, for: Fixture.lampID, at: reported)

        #expect(try await database.desired(for: Fixture.lampID) == Fixture.everyType)
        #expect(try await database.confirmed(for: Fixture.lampID) == confirmed)
        let record = try #require(try await database.device(Fixture.lampID))
        #expect(record.desired == Fixture.everyType)
        #expect(record.confirmed == confirmed)
        #expect(record.confirmedAt == reported)
    }

    @Test("an enum label that looks like a number stays an enum, a bitmap stays a bitmap")
    func tagsKeepTypes() throws {
        let values: DataPoints = [
            Fixture.dp(1): .enumeration("1"), Fixture.dp(2): .bitmap(1), Fixture.dp(3): .value(1),
        ]
        let text = StoredDataPoints.encode(values)
        #expect(text == #"{"1":{"enum":"1"},"2":{"bitmap":1},"3":{"value":1}}"#)
        #expect(try StoredDataPoints.decode(text, path: "p", column: "c") == values)
    }

    @Test("stored state is the same text as before: DPs in key order, strings escaped as JSONEncoder did")
    func storedText() throws {
        let values: DataPoints = [
            Fixture.dp(101): .string("a/b\"c\\d\n\r\t\u{8}\u{c}\u{1}\u{1f}é"), Fixture.dp(20): .bool(false),
            Fixture.dp(3): .raw([0x00, 0xAB, 0x0F]), Fixture.dp(25): .enumeration(""), Fixture.dp(1): .value(-42),
            Fixture.dp(7): .bitmap(4_294_967_295),
        ]
        let text = StoredDataPoints.encode(values)
        #expect(
            text
                == #"{"1":{"value":-42},"101":{"string":"a/b\"c\\d\n\r\t\b\f\u0001\u001fé"},"20":{"bool":false},"#
                + #""25":{"enum":""},"3":{"raw":"00ab0f"},"7":{"bitmap":4294967295}}"#)
        #expect(try StoredDataPoints.decode(text, path: "p", column: "c") == values)
        #expect(StoredDataPoints.encode([:]) == "{}")
    }

    @Test("stored JSON this binary did not write is reported as corrupt")
    func foreignJSON() {
        for text in [
            #"{"1":true}"#, #"{"0":{"bool":true}}"#, #"{"1":{"bool":true,"value":1}}"#, #"{"1":{"raw":"0g"}}"#, "[",
            #"{"1":{"value":4294967296}}"#,
        ] {
            #expect(throws: StorageError.self, "\(text)") { try StoredDataPoints.decode(text, path: "p", column: "c") }
        }
    }

    @Test("state for an unknown device is refused")
    func unknownDevice() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        await #expect(throws: StorageError.unknownDevice(Fixture.lampID)) {
            try await database.saveDesired([Fixture.dp(1): .bool(true)], for: Fixture.lampID)
        }
        await #expect(throws: StorageError.unknownDevice(Fixture.lampID)) {
            try await database.confirmed(for: Fixture.lampID)
        }
    }

    @Test("a huge state value is stored and read back")
    func hugeValue() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        let huge: DataPoints = [
            Fixture.dp(1): .string(String(repeating: "\"\\{}\u{1F4A1}", count: 200_000)),
            Fixture.dp(2): .raw([UInt8](repeating: 0xAB, count: 1_000_000)),
        ]
        try await database.saveDesired(huge, for: Fixture.lampID)
        #expect(try await database.desired(for: Fixture.lampID) == huge)
    }
}
