import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// Appends an event and trims the log to the newest `eventLimit` in the same transaction.
    /// Any stored local key that appears in the detail is replaced by `<redacted>`: the log
    /// is shown to users and must never carry a secret, whatever a caller puts in it.
    @discardableResult
    public func appendEvent(
        _ kind: String, device: DeviceID? = nil, detail: JSONValue = .null, at now: Date = Date()
    ) async throws(StorageError) -> Int64 {
        let limit = eventLimit
        let text = StoredJSON.encode(detail)
        return try await write("appending a \(kind) event") { db in
            var redacted = text
            for key in try String.fetchAll(db, sql: "SELECT DISTINCT local_key FROM secrets") where key.count >= 8 {
                redacted = redacted.replacingOccurrences(of: key, with: "<redacted>")
            }
            try db.execute(
                sql: "INSERT INTO events (at, kind, device_id, detail) VALUES (?, ?, ?, ?)",
                arguments: [StoredInstant(now), kind, device?.rawValue, redacted])
            let id = db.lastInsertedRowID
            try db.keepNewest(limit, in: "events", by: "id")
            return id
        }
    }

    /// The newest events, newest first.
    public func recentEvents(limit: Int = 100) async throws(StorageError) -> [StoredEvent] {
        try await read("loading events") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM events ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)])
                .compactMap { row in
                    // A row with a value of the wrong type (edited by hand) is left out.
                    let reader = ColumnReader(row: row)
                    guard let id = reader.value("id", as: Int64.self), let kind = reader.text("kind"),
                        let detail = reader.text("detail"), let rawDevice = reader.optionalText("device_id")
                    else { return nil }
                    return StoredEvent(
                        id: id, at: row.date("at") ?? .distantPast, kind: kind,
                        device: rawDevice.flatMap(DeviceID.init),
                        detail: StoredJSON.decode(detail) ?? .string(detail))
                }
        }
    }
}
