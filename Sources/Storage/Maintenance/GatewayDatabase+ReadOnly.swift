import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// One paired device as a read-only reader sees it: id, friendly name, profile.
    public struct PairedDevice: Hashable, Sendable {
        public var id: DeviceID
        public var name: String
        public var profileID: String
    }

    /// The paired devices of the state database in `directory`, read through a read-only
    /// connection without migrating or creating anything (`open --dry-run` needs no daemon
    /// and must not touch a daemon's files). An empty list when there is no database yet.
    public static func pairedDevicesReadOnly(directory: URL) throws(StorageError) -> [PairedDevice] {
        let path = StateFiles(directory: directory).database
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
            defer { try? queue.close() }
            return try queue.read { db in
                guard try db.tableExists("devices") else { return [] }
                return try Row.fetchAll(db, sql: "SELECT id, name, profile_id FROM devices ORDER BY name").compactMap {
                    row in
                    let id: String = row["id"]
                    guard let deviceID = DeviceID(id) else { return nil }
                    return PairedDevice(id: deviceID, name: row["name"], profileID: row["profile_id"])
                }
            }
        } catch {
            throw mapped(error, path: path, operation: "reading the paired devices")
        }
    }
}
