import Foundation
import GRDB
import Testing
import TuyaCore

@testable import Storage

/// Real parts: SQLite database files in a temporary directory.
@Suite("devices and secrets")
struct DeviceTableTests {
    @Test("a saved device comes back with its key, creation time and empty state")
    func roundTrip() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey, at: Fixture.paired)
        try await database.saveDevice(Fixture.diffuser, localKey: Fixture.diffuserKey, at: Fixture.paired)

        let records = try await database.loadDevices().records
        #expect(records.map(\.device) == [Fixture.lamp, Fixture.diffuser])
        #expect(records.map(\.localKey) == [Fixture.lampKey, Fixture.diffuserKey])
        #expect(records.allSatisfy { $0.createdAt == Fixture.paired && $0.desired.isEmpty && $0.confirmed.isEmpty })
        #expect(try await database.device(Fixture.lampID)?.device.productID == "keyabc123")
        #expect(try await database.device(DeviceID("nobody")!) == nil)
    }

    @Test("saving again replaces the description and key but keeps creation time and state")
    func replace() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey, at: Fixture.paired)
        try await database.saveDesired([Fixture.dp(20): .bool(true)], for: Fixture.lampID)
        var renamed = Fixture.lamp
        renamed.name = "hall-lamp"
        renamed.productID = nil
        try await database.saveDevice(renamed, localKey: LocalKey("aaaaaaaaaaaaaaaa"), at: Date())

        let record = try #require(try await database.device(Fixture.lampID))
        #expect(record.device == renamed)
        #expect(record.localKey == LocalKey("aaaaaaaaaaaaaaaa"))
        #expect(record.createdAt == Fixture.paired)
        #expect(record.desired == [Fixture.dp(20): .bool(true)])
    }

    @Test("a name used by another device is refused, naming that device")
    func uniqueNames() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        var clash = Fixture.diffuser
        clash.name = Fixture.lamp.name
        await #expect(throws: StorageError.nameTaken(name: "bedroom-lamp", by: Fixture.lampID)) {
            try await database.saveDevice(clash, localKey: Fixture.diffuserKey)
        }
        try await database.saveDevice(Fixture.diffuser, localKey: Fixture.diffuserKey)
        await #expect(throws: StorageError.nameTaken(name: "bedroom-lamp", by: Fixture.lampID)) {
            try await database.rename(Fixture.diffuserID, to: "bedroom-lamp")
        }
        #expect(try await database.loadDevices().records.count == 2)
    }

    @Test("rename changes only the name; an unknown id is reported")
    func rename() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        try await database.rename(Fixture.lampID, to: "kitchen")
        #expect(try await database.device(Fixture.lampID)?.device.name == "kitchen")
        await #expect(throws: StorageError.unknownDevice(Fixture.diffuserID)) {
            try await database.rename(Fixture.diffuserID, to: "x")
        }
    }

    @Test("remove cascades to the key and the state rows, and says whether it removed anything")
    func removeCascades() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        try await database.saveConfirmed([Fixture.dp(1): .bool(true)], for: Fixture.lampID)
        #expect(try await database.remove(Fixture.lampID))
        #expect(try await database.remove(Fixture.lampID) == false)
        let orphans = try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM secrets) + (SELECT count(*) FROM device_state)")
        }
        #expect(orphans == 0)
        #expect(try await database.loadDevices().records.isEmpty)
    }

    @Test("names with quotes, newlines, SQL and unicode are stored and read back exactly")
    func hostileNames() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let names = [
            "it's \"the\" lamp", "line1\nline2\r\n\t", "'); DROP TABLE devices; --", "Schlafzimmer 💡 ランプ",
            String(repeating: "x", count: 100_000),
        ]
        for (index, name) in names.enumerated() {
            let device = TuyaDevice(
                id: DeviceID("hostile-\(index)")!, name: name, profileID: "p'\"", category: .light, transport: .mqtt,
                productID: "\u{202E}rtl")
            try await database.saveDevice(device, localKey: LocalKey("k'\"\n\u{1F511}23456789"))
        }
        let loaded = try await database.loadDevices().records
        #expect(loaded.map(\.device.name) == names)
        #expect(
            loaded.allSatisfy { $0.localKey.text == "k'\"\n\u{1F511}23456789" && $0.device.productID == "\u{202E}rtl" })
    }

    @Test("a NUL character, which SQLite text would cut off, is refused rather than truncated")
    func nulRefused() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        var device = Fixture.lamp
        device.name = "nul\u{0}inside"
        await #expect(throws: StorageError.invalidText(field: "name", device: Fixture.lampID)) {
            try await database.saveDevice(device, localKey: Fixture.lampKey)
        }
        await #expect(throws: StorageError.invalidText(field: "local key", device: Fixture.lampID)) {
            try await database.saveDevice(Fixture.lamp, localKey: LocalKey("\u{0}123456789abcdef"))
        }
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        await #expect(throws: StorageError.invalidText(field: "name", device: Fixture.lampID)) {
            try await database.rename(Fixture.lampID, to: "a\u{0}")
        }
        #expect(try await database.loadDevices().records.map(\.device) == [Fixture.lamp])
    }

    @Test("no description, debug description or dump of a record shows the local key")
    func keyNeverPrinted() async throws {
        let record = StoredDeviceRecord(device: Fixture.lamp, localKey: Fixture.lampKey, createdAt: Fixture.paired)
        var dumped = ""
        dump(record, to: &dumped)
        for text in [
            "\(record)", String(reflecting: record), "\(record.localKey)", String(reflecting: record.localKey),
            dumped, "\([record])",
        ] {
            #expect(!text.contains(Fixture.lampKey.text), "\(text)")
        }
    }

    @Test("a damaged device row is reported with what is damaged, the others still load, and it is kept")
    func damagedRow() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        var other = Fixture.lamp
        other.id = DeviceID("bf00000000000000000two")!
        other.name = "two"
        try await database.saveDevice(other, localKey: Fixture.lampKey)
        let otherID = other.id.rawValue
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE devices SET category = 'toaster\n' WHERE id = ?", arguments: [otherID])
            try db.execute(
                sql: "UPDATE device_state SET desired = '{not json' WHERE device_id = ?",
                arguments: [Fixture.lampID.rawValue])
        }
        let stored = try await database.loadDevices()
        #expect(stored.records.isEmpty)
        #expect(
            stored.damaged == [
                DamagedDeviceRecord(
                    rawID: other.id.rawValue, id: other.id, name: "two", problem: #"its category "toaster\n""#),
                DamagedDeviceRecord(
                    rawID: Fixture.lampID.rawValue, id: Fixture.lampID, name: Fixture.lamp.name, device: Fixture.lamp,
                    problem: "its desired state"),
            ])
        #expect(
            stored.damaged[0].description
                == #"the stored row of device "bf00000000000000000two" is damaged: its category "toaster\n" cannot be read"#
        )
        // One device asked for by id is refused as corrupt, naming what is damaged.
        await #expect {
            try await database.device(Fixture.lampID)
        } throws: { error in
            guard case StorageError.corrupt(let path, let hint) = error else { return false }
            return path == database.path && hint.contains("its desired state cannot be read")
        }
        #expect(
            try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM devices") } == 2,
            "nothing is deleted")

        // Pairing the device again replaces its damaged row whole: it reads at the next load.
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        #expect(try await database.loadDevices().records.map(\.device) == [Fixture.lamp])
    }

    @Test(
        "a value of the wrong type in any column (a number for text, text for a number, a blob for a name) is reported as damage, never a trap"
    )
    func wrongTypes() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let lanID = DeviceID("bf00000000000000000lan")!
        let lan = TuyaDevice(id: lanID, name: "lan", profileID: "p", category: .light, transport: .lan)
        try await database.saveDevice(
            lan, localKey: Fixture.lampKey, lan: try LANEndpoint(ip: "192.168.1.9", version: "3.3", sourceID: 7))
        try await database.saveDevice(
            Fixture.diffuser, localKey: Fixture.diffuserKey,
            ble: try BLEIdentity(address: "dc:23:4d:12:34:56", uuid: "tuyaabc123def456"))
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        let (diffuserID, lampID) = (Fixture.diffuserID.rawValue, Fixture.lampID.rawValue)
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE lan_endpoints SET source_id = 'x'")
            try db.execute(
                sql: "UPDATE ble_identities SET random_address = 'yes' WHERE device_id = ?", arguments: [diffuserID])
            try db.execute(sql: "UPDATE devices SET name = x'ff00fe' WHERE id = ?", arguments: [lampID])
        }
        let damaged = try await database.loadDevices().damaged
        #expect(
            damaged.map(\.problem) == [
                "its LAN address, version or source id", "its name, profile or product id", "its BLE address or uuid",
            ])
        #expect(damaged.map(\.id) == [lanID, Fixture.lampID, Fixture.diffuserID])
    }
}

@Suite("BLE identities in the device table")
struct BLEIdentityStorageTests {
    @Test("a BLE device keeps its address and uuid across a reopen; removing it removes them; a damaged row is refused")
    func roundTrip() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let id = DeviceID("blediffuser01")!
        let device = TuyaDevice(
            id: id, name: "aroma", profileID: "ble-diffuser-dituo", category: .diffuser, transport: .ble)
        let identity = try BLEIdentity(address: "dc:23:4d:12:34:56", uuid: "tuyaabc123def456")
        do {
            let database = try GatewayDatabase.open(directory: scratch.state)
            try await database.saveDevice(device, localKey: LocalKey("0123456789abcdef"), ble: identity)
            try database.close()
        }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let record = try #require(try await database.device(id))
        #expect(record.ble == identity)
        #expect(record.ble?.address == "DC:23:4D:12:34:56")

        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE ble_identities SET address = 'not an address' WHERE device_id = ?",
                arguments: [id.rawValue])
        }
        await #expect(throws: StorageError.self) { try await database.device(id) }

        try await database.remove(id)
        let left = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ble_identities")
        }
        #expect(left == 0)
    }

    @Test("hostile identities are refused with the reason")
    func validation() {
        #expect(throws: BLEIdentityError.invalidAddress("DC:23:4D:12:34")) {
            try BLEIdentity(address: "DC:23:4D:12:34", uuid: "u1")
        }
        #expect(throws: BLEIdentityError.invalidAddress("zz:23:4d:12:34:56")) {
            try BLEIdentity(address: "zz:23:4d:12:34:56", uuid: "u1")
        }
        #expect(throws: BLEIdentityError.invalidUUID) { try BLEIdentity(address: "DC:23:4D:12:34:56", uuid: "") }
        #expect(throws: BLEIdentityError.invalidUUID) { try BLEIdentity(address: "DC:23:4D:12:34:56", uuid: "a/b") }
    }
}

@Suite("LAN endpoints in the device table")
struct LANEndpointStorageTests {
    @Test(
        "a LAN device keeps its address, version and source id across a reopen; a new IP is saved; a damaged row is refused"
    )
    func roundTrip() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let id = DeviceID("bf0lanbulb000000000001")!
        let device = TuyaDevice(id: id, name: "lamp", profileID: "rgbcct-bulb-v2", category: .light, transport: .lan)
        let endpoint = try LANEndpoint(ip: "192.168.1.40", version: "3.5", sourceID: 0xDEAD_BEEF)
        do {
            let database = try GatewayDatabase.open(directory: scratch.state)
            try await database.saveDevice(device, localKey: LocalKey("0123456789abcdef"), lan: endpoint)
            try database.close()
        }
        let database = try GatewayDatabase.open(directory: scratch.state)
        #expect(try await database.device(id)?.lan == endpoint)

        var moved = endpoint
        moved.ip = "192.168.1.77"
        try await database.saveLANEndpoint(moved, for: id)
        #expect(try await database.device(id)?.lan?.ip == "192.168.1.77")
        await #expect(throws: StorageError.unknownDevice(DeviceID("nosuchdevice")!)) {
            try await database.saveLANEndpoint(moved, for: DeviceID("nosuchdevice")!)
        }

        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE lan_endpoints SET version = '9.9' WHERE device_id = ?", arguments: [id.rawValue])
        }
        await #expect(throws: StorageError.self) { try await database.device(id) }
        try await database.remove(id)
        let left = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lan_endpoints")
        }
        #expect(left == 0)
    }

    @Test("hostile endpoints are refused with the reason")
    func validation() {
        #expect(throws: LANEndpointError.invalidIP("192.168.1")) {
            try LANEndpoint(ip: "192.168.1", version: "3.3", sourceID: 1)
        }
        for ip in ["256.1.1.1", "01.2.3.4", "1.2.3.-4", "a.b.c.d", "1.2.3.4 ", "١.٢.٣.٤"] {
            #expect(throws: LANEndpointError.self) { try LANEndpoint(ip: ip, version: "3.3", sourceID: 1) }
        }
        #expect(throws: LANEndpointError.unsupportedVersion("2.2")) {
            try LANEndpoint(ip: "10.0.0.1", version: "2.2", sourceID: 1)
        }
        #expect(throws: LANEndpointError.zeroSourceID) { try LANEndpoint(ip: "10.0.0.1", version: "3.5", sourceID: 0) }
    }
}
