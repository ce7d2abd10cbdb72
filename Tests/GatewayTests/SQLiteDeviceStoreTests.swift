import Foundation
import GRDB
import Gateway
import Storage
import Testing
import TuyaController
import TuyaCore
import TuyaWire

/// Real parts: an SQLite database file in a temporary directory.
@Suite("the controller's device store on SQLite")
struct SQLiteDeviceStoreTests {
    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("youll-store-\(UUID().uuidString)")
    }

    @Test("a paired device, its key and its desired state survive closing and reopening the database")
    func survivesReopen() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let id = try #require(DeviceID("bf0123456789abcdefghij"))
        let device = TuyaDevice(
            id: id, name: "desk lamp", profileID: "rgbcct-bulb-v2", category: .light, transport: .mqtt,
            productID: "keyjup78v54myhan")
        let desired: DataPoints = [DataPointID(20)!: .bool(true), DataPointID(21)!: .enumeration("white")]
        do {
            let database = try GatewayDatabase.open(directory: directory)
            let store = SQLiteDeviceStore(database: database)
            try await store.save(StoredDevice(device: device, localKey: try AESKey(localKey: "0123456789abcdef")))
            try await store.saveDesired(desired, for: id)
            try database.close()
        }
        let reopened = SQLiteDeviceStore(database: try GatewayDatabase.open(directory: directory))
        let loaded = try await reopened.loadDevices()
        #expect(loaded.count == 1)
        #expect(loaded.first?.device == device)
        #expect(loaded.first?.localKey == (try AESKey(localKey: "0123456789abcdef")))
        #expect(loaded.first?.desired == desired)

        try await reopened.remove(id)
        #expect(try await reopened.loadDevices().isEmpty)
    }

    @Test(
        "the daemon's store takes a desired state from a link's thread without waiting, and it is on disk once the queue is flushed; a store that waits for each commit says it cannot"
    )
    func queuesDesiredStates() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let id = try #require(DeviceID("bf0123456789abcdefghij"))
        let device = TuyaDevice(
            id: id, name: "desk lamp", profileID: "rgbcct-bulb-v2", category: .light, transport: .lan)
        let first: DataPoints = [DataPointID(20)!: .bool(true)]
        let last: DataPoints = [DataPointID(20)!: .bool(false), DataPointID(22)!: .value(500)]
        do {
            let database = try GatewayDatabase.open(directory: directory)
            let waiting = SQLiteDeviceStore(database: database)
            try await waiting.save(StoredDevice(device: device, localKey: try AESKey(localKey: "0123456789abcdef")))
            #expect(!waiting.queueDesired(first, for: id))
            let queueing = SQLiteDeviceStore(database: database, queuesDesiredStates: true)
            #expect(queueing.queueDesired(first, for: id))
            #expect(queueing.queueDesired(last, for: id))
            await database.flushQueuedStates()
            try database.close()
        }
        let reopened = SQLiteDeviceStore(database: try GatewayDatabase.open(directory: directory))
        #expect(try await reopened.loadDevices().first?.desired == last)
    }

    @Test(
        "a key that makes no AES key and a damaged row leave the device inactive with why, a row whose id does not read is described, and the others load"
    )
    func inactiveDevices() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func device(_ id: String, _ name: String) -> TuyaDevice {
            TuyaDevice(id: DeviceID(id)!, name: name, profileID: "rgbcct-bulb-v2", category: .light, transport: .mqtt)
        }
        let good = device("bf00000000000000000good", "good")
        let shortKey = device("bf0000000000000shortkey", "short-key")
        let badState = device("bf0000000000000badstate", "bad-state")
        let database = try GatewayDatabase.open(directory: directory)
        try await database.saveDevice(good, localKey: LocalKey("0123456789abcdef"))
        try await database.saveDevice(shortKey, localKey: LocalKey("tooshort"))
        try await database.saveDevice(badState, localKey: LocalKey("0123456789abcdef"))
        try await database.saveDevice(device("bf00000000000badtransport", "x"), localKey: LocalKey("0123456789abcdef"))
        try database.close()
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("state.sqlite").path)
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE device_state SET confirmed = '[' WHERE device_id = ?", arguments: [badState.id.rawValue])
            try db.execute(sql: "UPDATE devices SET transport = 'zigbee' WHERE id = 'bf00000000000badtransport'")
            try db.execute(
                sql: """
                    INSERT INTO devices (id, name, profile_id, category, transport, created_at)
                    VALUES ('bad id/1', 'y', 'p', 'dj', 'mqtt', '2026-01-01 00:00:00.000')
                    """)
        }
        try queue.close()

        let load = try await SQLiteDeviceStore(database: try GatewayDatabase.open(directory: directory)).loadAll()
        #expect(load.devices.map(\.device) == [good])
        #expect(
            Set(load.inactive)
                == [
                    InactiveDevice(device: shortKey, reason: .unusableKey),
                    InactiveDevice(device: badState, reason: .damagedRecord("its confirmed state")),
                    .damaged(
                        id: DeviceID("bf00000000000badtransport")!, name: "x", problem: #"its transport "zigbee""#),
                ])
        #expect(load.unreadable == [#"the stored row of device "bad id/1" is damaged: its id cannot be read"#])
    }
}
