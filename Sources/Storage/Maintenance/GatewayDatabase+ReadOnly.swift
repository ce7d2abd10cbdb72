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
                    let reader = ColumnReader(row: row)
                    guard let deviceID = reader.text("id").flatMap(DeviceID.init), let name = reader.text("name"),
                        let profileID = reader.text("profile_id")
                    else { return nil }
                    return PairedDevice(id: deviceID, name: name, profileID: profileID)
                }
            }
        } catch {
            throw mapped(error, path: path, operation: "reading the paired devices")
        }
    }

    /// The webhook's undelivered alerts as `doctor` reports them.
    public struct OutboxSummary: Hashable, Sendable {
        /// Alerts not delivered yet.
        public var pending: Int
        /// Of those, the ones whose delivery failed at least once.
        public var failing: Int
        /// The most failed attempts of one alert.
        public var attempts: Int
        /// The oldest failing alert's last error, as stored (may quote the URL: do not print it whole).
        public var lastError: String?
    }

    /// The outbox of the state database in `directory`, read-only (nil when there is no
    /// database or no outbox yet).
    public static func outboxSummaryReadOnly(directory: URL) throws(StorageError) -> OutboxSummary? {
        let path = StateFiles(directory: directory).database
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
            defer { try? queue.close() }
            return try queue.read { db -> OutboxSummary? in
                guard try db.tableExists("alert_outbox") else { return nil }
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) AS pending, SUM(attempts > 0) AS failing, MAX(attempts) AS attempts,
                            (SELECT last_error FROM alert_outbox WHERE delivered_at IS NULL AND attempts > 0
                             ORDER BY seq LIMIT 1) AS last_error
                        FROM alert_outbox WHERE delivered_at IS NULL
                        """)
                guard let row else { return OutboxSummary(pending: 0, failing: 0, attempts: 0, lastError: nil) }
                // A value of the wrong type (a row edited by hand) counts as none.
                let reader = ColumnReader(row: row)
                return OutboxSummary(
                    pending: reader.value("pending") ?? 0, failing: reader.value("failing") ?? 0,
                    attempts: reader.value("attempts") ?? 0, lastError: reader.text("last_error"))
            }
        } catch {
            throw mapped(error, path: path, operation: "reading the alert outbox")
        }
    }
}
