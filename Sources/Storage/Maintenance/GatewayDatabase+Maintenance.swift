import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// Every stored reminder, by device and type.
    public func maintenanceReminders() async throws(StorageError) -> [StoredReminder] {
        try await read("loading maintenance reminders") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM maintenance_reminders ORDER BY device_id, type").compactMap {
                row in
                // A row with a value of the wrong type (edited by hand) is left out, never a trap.
                let reader = ColumnReader(row: row)
                guard let device = reader.text("device_id"), let id = DeviceID(device),
                    let type = reader.text("type"), let status = reader.text("status"),
                    let state = reader.text("state")
                else { return nil }
                return StoredReminder(
                    device: id, type: type, status: status, state: state,
                    updatedAt: row.date("updated_at") ?? .distantPast)
            }
        }
    }

    /// Stores changed reminders and the transitions that changed them in one transaction,
    /// so a crash never keeps one without the other. The newest `eventLimit` transitions are
    /// kept, as events are: each snooze is one, and a client can send snoozes without end.
    public func saveMaintenance(
        reminders: [StoredReminder], transitions: [StoredReminderTransition]
    ) async throws(StorageError) {
        guard !reminders.isEmpty || !transitions.isEmpty else { return }
        let limit = eventLimit
        try await write("saving maintenance reminders") { db in
            for reminder in reminders {
                try db.execute(
                    sql: """
                        INSERT INTO maintenance_reminders (device_id, type, status, state, updated_at)
                        VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(device_id, type) DO UPDATE SET status = excluded.status,
                            state = excluded.state, updated_at = excluded.updated_at
                        """,
                    arguments: [
                        reminder.device.rawValue, reminder.type, reminder.status, reminder.state,
                        StoredInstant(reminder.updatedAt),
                    ])
            }
            for transition in transitions {
                try db.execute(
                    sql: """
                        INSERT INTO maintenance_transitions (device_id, type, from_status, to_status, at, cause)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        transition.device.rawValue, transition.type, transition.from, transition.to,
                        StoredInstant(transition.at),
                        transition.cause,
                    ])
            }
            guard !transitions.isEmpty else { return }
            try db.keepNewest(limit, in: "maintenance_transitions", by: "id")
        }
    }

    /// Forgets a removed device's reminders (its transitions stay as history) and its alerts in
    /// the outbox: one still waiting is
    /// not sent about a device that is gone, and once it is paired again its alerts, whose ids
    /// (`<device>:<type>:<state>:<round>`) start again from round 0, are not taken for ones
    /// already delivered.
    public func deleteMaintenance(of device: DeviceID) async throws(StorageError) {
        try await write("deleting the maintenance reminders of \(device)") { db in
            try db.execute(sql: "DELETE FROM maintenance_reminders WHERE device_id = ?", arguments: [device.rawValue])
            // Device ids hold no ':' (nor does LIKE's `_` wildcard matter here: a prefix compare).
            let prefix = device.rawValue + ":"
            try db.execute(
                sql: "DELETE FROM alert_outbox WHERE substr(id, 1, length(?)) = ?", arguments: [prefix, prefix])
        }
    }

    /// Transitions, oldest first; of one device when given.
    public func maintenanceTransitions(of device: DeviceID? = nil, limit: Int = 1_000) async throws(StorageError)
        -> [StoredReminderTransition]
    {
        try await read("loading maintenance transitions") { db in
            var sql = "SELECT * FROM maintenance_transitions"
            var arguments: StatementArguments = []
            if let device {
                sql += " WHERE device_id = ?"
                arguments += [device.rawValue]
            }
            sql += " ORDER BY id LIMIT ?"
            arguments += [max(0, limit)]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                let reader = ColumnReader(row: row)
                guard let id = reader.text("device_id").flatMap(DeviceID.init), let type = reader.text("type"),
                    let from = reader.text("from_status"), let to = reader.text("to_status"),
                    let cause = reader.text("cause")
                else { return nil }
                return StoredReminderTransition(
                    device: id, type: type, from: from, to: to, at: row.date("at") ?? .distantPast, cause: cause)
            }
        }
    }

    /// The latest usage snapshot's JSON, or nil before the first.
    public func maintenanceUsage() async throws(StorageError) -> String? {
        try await read("loading the maintenance usage") { db in
            try String.fetchOne(db, sql: "SELECT snapshot FROM maintenance_usage WHERE id = 1")
        }
    }

    /// Replaces the usage snapshot.
    public func saveMaintenanceUsage(_ snapshot: String, takenAt: Date) async throws(StorageError) {
        try await write("saving the maintenance usage") { db in
            try db.execute(
                sql: """
                    INSERT INTO maintenance_usage (id, taken_at, snapshot) VALUES (1, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET taken_at = excluded.taken_at, snapshot = excluded.snapshot
                    """,
                arguments: [StoredInstant(takenAt), snapshot])
        }
    }

    // MARK: - Alert outbox

    /// Queues an alert for the webhook. Idempotent by id: an id seen before (delivered or
    /// not) is ignored. Returns whether it was new.
    @discardableResult
    public func enqueueAlert(id: String, payload: String, at now: Date = Date()) async throws(StorageError) -> Bool {
        try await write("queueing alert \(id)") { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO alert_outbox (id, payload, queued_at) VALUES (?, ?, ?)",
                arguments: [id, payload, StoredInstant(now)])
            return db.changesCount > 0
        }
    }

    /// Alerts not yet delivered, oldest first.
    public func pendingAlerts(limit: Int) async throws(StorageError) -> [StoredOutboxAlert] {
        try await read("loading the alert outbox") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM alert_outbox WHERE delivered_at IS NULL ORDER BY seq LIMIT ?",
                arguments: [max(0, limit)]
            ).compactMap(Self.outboxAlert(from:))
        }
    }

    /// Every outbox row (delivered too), oldest first, for `doctor` and tests.
    public func outboxAlerts() async throws(StorageError) -> [StoredOutboxAlert] {
        try await read("loading the alert outbox") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM alert_outbox ORDER BY seq").compactMap(Self.outboxAlert(from:))
        }
    }

    /// Marks an alert delivered. Delivered rows are kept, the newest `eventLimit` of them (so
    /// a recent alert queued again is still recognised), and the older ones deleted: they
    /// were never deleted, and every reminder alert added one for good.
    public func markAlertDelivered(_ id: String, at now: Date = Date()) async throws(StorageError) {
        let limit = eventLimit
        try await write("marking alert \(id) delivered") { db in
            try db.execute(
                sql: "UPDATE alert_outbox SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL",
                arguments: [StoredInstant(now), id])
            try db.keepNewest(limit, in: "alert_outbox", by: "seq", where: "delivered_at IS NOT NULL")
        }
    }

    /// Counts a failed delivery; returns the attempts so far (0 for an unknown id).
    public func recordAlertFailure(_ id: String, reason: String) async throws(StorageError) -> Int {
        try await write("recording a failed delivery of alert \(id)") { db in
            try db.execute(
                sql: "UPDATE alert_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?",
                arguments: [String(reason.prefix(500)), id])
            return try Int.fetchOne(db, sql: "SELECT attempts FROM alert_outbox WHERE id = ?", arguments: [id]) ?? 0
        }
    }

    /// An alert of the outbox, or nil for a row with a value of the wrong type (edited by hand).
    private static func outboxAlert(from row: Row) -> StoredOutboxAlert? {
        let reader = ColumnReader(row: row)
        guard let id = reader.text("id"), let payload = reader.text("payload"),
            let attempts = reader.value("attempts", as: Int.self), let lastError = reader.optionalText("last_error")
        else { return nil }
        return StoredOutboxAlert(
            id: id, payload: payload, queuedAt: row.date("queued_at") ?? .distantPast, attempts: attempts,
            lastError: lastError, deliveredAt: row.date("delivered_at"))
    }
}
