import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// Replaces what the user last asked a device to hold; re-applied after reconnects.
    public func saveDesired(_ desired: DataPoints, for id: DeviceID, at now: Date = Date()) async throws(StorageError) {
        try await saveState(column: "desired", StoredDataPoints.encode(desired), for: id, at: now)
    }

    /// Replaces what a device last confirmed holding. Pass the merged view: a device report
    /// usually carries only the DPs that changed.
    public func saveConfirmed(_ confirmed: DataPoints, for id: DeviceID, at now: Date = Date())
        async throws(StorageError)
    {
        try await saveState(column: "confirmed", StoredDataPoints.encode(confirmed), for: id, at: now)
    }

    /// The desired state of a paired device (empty when none was set).
    public func desired(for id: DeviceID) async throws(StorageError) -> DataPoints {
        try await loadState(column: "desired", for: id)
    }

    /// The last confirmed state of a paired device (empty when it never reported).
    public func confirmed(for id: DeviceID) async throws(StorageError) -> DataPoints {
        try await loadState(column: "confirmed", for: id)
    }

    /// `column` is one of two literals above, never user input.
    private func saveState(column: String, _ json: String, for id: DeviceID, at now: Date) async throws(StorageError) {
        try await write("saving the \(column) state of \(id)") { db in
            guard try Self.exists(id, db) else { throw StorageError.unknownDevice(id) }
            try db.execute(
                sql: """
                    INSERT INTO device_state (device_id, \(column), \(column)_at) VALUES (?, ?, ?)
                    ON CONFLICT(device_id) DO UPDATE SET \(column) = excluded.\(column), \(column)_at = excluded.\(column)_at
                    """,
                arguments: [id.rawValue, json, StoredInstant(now)])
        }
    }

    private func loadState(column: String, for id: DeviceID) async throws(StorageError) -> DataPoints {
        let path = self.path
        return try await read("loading the \(column) state of \(id)") { db in
            guard try Self.exists(id, db) else { throw StorageError.unknownDevice(id) }
            let json = try String.fetchOne(
                db, sql: "SELECT \(column) FROM device_state WHERE device_id = ?", arguments: [id.rawValue])
            return try StoredDataPoints.decode(json ?? "{}", path: path, column: column)
        }
    }
}
