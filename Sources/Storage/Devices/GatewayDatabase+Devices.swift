import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// Adds a device with its local key, or replaces the description and key of one already
    /// paired (keeping when it was paired and its desired and confirmed state, unless its
    /// stored row is damaged: then it is replaced whole).
    /// Throws `nameTaken` when another device already has the name.
    /// `ble` is stored for BLE devices and `lan` for LAN devices (each cleared when nil).
    public func saveDevice(
        _ device: TuyaDevice, localKey: LocalKey, ble: BLEIdentity? = nil, lan: LANEndpoint? = nil,
        at now: Date = Date()
    ) async throws(StorageError) {
        let fields = [
            ("name", device.name), ("profile id", device.profileID), ("product id", device.productID ?? ""),
            ("local key", localKey.text),
        ]
        for (field, text) in fields where text.utf8.contains(0) {
            throw .invalidText(field: field, device: device.id)
        }
        try await write("saving device \(device.id)") { db in
            try Self.checkNameFree(device.name, for: device.id, db)
            // Pairing over a row this binary cannot read replaces it whole (its state and
            // identities too): kept, its damaged parts would make it inactive again at the next start.
            if let row = try Row.fetchOne(
                db, sql: Self.deviceQuery + " WHERE d.id = ?", arguments: [device.id.rawValue]),
                case .failure = Self.record(from: row)
            {
                try db.execute(sql: "DELETE FROM devices WHERE id = ?", arguments: [device.id.rawValue])
            }
            try db.execute(
                sql: """
                    INSERT INTO devices (id, name, profile_id, category, transport, product_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, profile_id = excluded.profile_id,
                        category = excluded.category, transport = excluded.transport, product_id = excluded.product_id
                    """,
                arguments: [
                    device.id.rawValue, device.name, device.profileID, device.category.rawValue,
                    device.transport.rawValue, device.productID, StoredInstant(now),
                ])
            try db.execute(
                sql: """
                    INSERT INTO secrets (device_id, local_key) VALUES (?, ?)
                    ON CONFLICT(device_id) DO UPDATE SET local_key = excluded.local_key
                    """,
                arguments: [device.id.rawValue, localKey.text])
            try db.execute(
                sql: "INSERT OR IGNORE INTO device_state (device_id) VALUES (?)", arguments: [device.id.rawValue])
            if let ble {
                try db.execute(
                    sql: """
                        INSERT INTO ble_identities (device_id, address, random_address, uuid) VALUES (?, ?, ?, ?)
                        ON CONFLICT(device_id) DO UPDATE SET address = excluded.address,
                            random_address = excluded.random_address, uuid = excluded.uuid
                        """,
                    arguments: [device.id.rawValue, ble.address, ble.randomAddress, ble.uuid])
            } else {
                try db.execute(sql: "DELETE FROM ble_identities WHERE device_id = ?", arguments: [device.id.rawValue])
            }
            if let lan {
                try Self.upsert(lan, for: device.id, db)
            } else {
                try db.execute(sql: "DELETE FROM lan_endpoints WHERE device_id = ?", arguments: [device.id.rawValue])
            }
        }
    }

    /// Records a LAN device's new address or protocol version (after a DHCP change seen in
    /// its broadcasts, or a re-probe).
    public func saveLANEndpoint(_ endpoint: LANEndpoint, for id: DeviceID) async throws(StorageError) {
        try await write("saving the address of device \(id)") { db in
            guard try Self.exists(id, db) else { throw StorageError.unknownDevice(id) }
            try Self.upsert(endpoint, for: id, db)
        }
    }

    private static func upsert(_ lan: LANEndpoint, for id: DeviceID, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO lan_endpoints (device_id, ip, version, source_id) VALUES (?, ?, ?, ?)
                ON CONFLICT(device_id) DO UPDATE SET ip = excluded.ip, version = excluded.version,
                    source_id = excluded.source_id
                """,
            arguments: [id.rawValue, lan.ip, lan.version, Int64(lan.sourceID)])
    }

    /// Every paired device with its key and state, ordered by id, and apart from them the
    /// rows this binary cannot use (edited by hand): one damaged row must not keep every
    /// other device from loading, and is reported, never skipped silently or deleted.
    public func loadDevices() async throws(StorageError) -> StoredDevices {
        try await read("loading devices") { db in
            var devices = StoredDevices()
            for row in try Row.fetchAll(db, sql: Self.deviceQuery + " ORDER BY d.id") {
                switch Self.record(from: row) {
                case .success(let record): devices.records.append(record)
                case .failure(let damaged): devices.damaged.append(damaged)
                }
            }
            return devices
        }
    }

    /// One paired device, or nil when none has this id; a damaged row is reported as corrupt.
    public func device(_ id: DeviceID) async throws(StorageError) -> StoredDeviceRecord? {
        let path = self.path
        return try await read("loading device \(id)") { db in
            try Row.fetchOne(db, sql: Self.deviceQuery + " WHERE d.id = ?", arguments: [id.rawValue]).map {
                row throws(StorageError) in
                switch Self.record(from: row) {
                case .success(let record): return record
                case .failure(let damaged):
                    throw StorageError.corrupt(path: path, hint: "\(damaged.description); \(Self.corruptHint)")
                }
            }
        }
    }

    /// Gives a device a new name; names stay unique.
    public func rename(_ id: DeviceID, to name: String) async throws(StorageError) {
        if name.utf8.contains(0) { throw .invalidText(field: "name", device: id) }
        try await write("renaming device \(id)") { db in
            try Self.checkNameFree(name, for: id, db)
            try db.execute(sql: "UPDATE devices SET name = ? WHERE id = ?", arguments: [name, id.rawValue])
            guard db.changesCount > 0 else { throw StorageError.unknownDevice(id) }
        }
    }

    /// Forgets a device, its key and its state (the foreign keys cascade). Events that
    /// mention it stay in the log. Returns whether a device was removed.
    @discardableResult
    public func remove(_ id: DeviceID) async throws(StorageError) -> Bool {
        try await write("removing device \(id)") { db in
            try db.execute(sql: "DELETE FROM devices WHERE id = ?", arguments: [id.rawValue])
            return db.changesCount > 0
        }
    }

    static let deviceQuery = """
        SELECT d.id, d.name, d.profile_id, d.category, d.transport, d.product_id, d.created_at,
               s.local_key, st.desired, st.confirmed, st.confirmed_at,
               b.address AS ble_address, b.random_address AS ble_random, b.uuid AS ble_uuid,
               l.ip AS lan_ip, l.version AS lan_version, l.source_id AS lan_source
        FROM devices d
        LEFT JOIN secrets s ON s.device_id = d.id
        LEFT JOIN device_state st ON st.device_id = d.id
        LEFT JOIN ble_identities b ON b.device_id = d.id
        LEFT JOIN lan_endpoints l ON l.device_id = d.id
        """

    static func checkNameFree(_ name: String, for id: DeviceID, _ db: Database) throws {
        let owner = try String.fetchOne(
            db, sql: "SELECT id FROM devices WHERE name = ? AND id <> ?", arguments: [name, id.rawValue])
        if let owner, let ownerID = DeviceID(owner) { throw StorageError.nameTaken(name: name, by: ownerID) }
    }

    static func exists(_ id: DeviceID, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM devices WHERE id = ?)", arguments: [id.rawValue])
            ?? false
    }
}
