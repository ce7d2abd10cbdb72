import Foundation
import Maintenance
import Storage
import TuyaCore

/// The Maintenance module's `MaintenanceStore` and the webhook's `AlertOutbox` on the
/// SQLite database (migration v6). An adapter, because Storage may not import Maintenance:
/// reminder states, usage snapshots and alerts are stored as their own JSON.
public struct SQLiteMaintenanceStore: MaintenanceStore, AlertOutbox {
    public let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    // MARK: - MaintenanceStore

    /// Every stored reminder state; a row that no longer decodes (edited by hand) is
    /// skipped, and its reminder starts afresh when its device registers.
    public func reminderStates() async throws -> [ReminderState] {
        let decoder = Self.decoder()
        return try await database.maintenanceReminders().compactMap { row in
            try? decoder.decode(ReminderState.self, from: Data(row.state.utf8))
        }
    }

    public func save(reminders: [ReminderState], transitions: [ReminderTransition]) async throws {
        let encoder = Self.encoder()
        let now = Date()
        let rows = try reminders.map { state in
            StoredReminder(
                device: state.key.device, type: state.key.type, status: state.status.rawValue,
                state: String(decoding: try encoder.encode(state), as: UTF8.self), updatedAt: now)
        }
        let history = transitions.map { transition in
            StoredReminderTransition(
                device: transition.key.device, type: transition.key.type, from: transition.from.rawValue,
                to: transition.to.rawValue, at: transition.at, cause: transition.cause.description)
        }
        let database = database
        try await Self.uncancelled { try await database.saveMaintenance(reminders: rows, transitions: history) }
    }

    public func usageSnapshot() async throws -> UsageSnapshot? {
        guard let text = try await database.maintenanceUsage() else { return nil }
        return try? Self.decoder().decode(UsageSnapshot.self, from: Data(text.utf8))
    }

    public func save(usage: UsageSnapshot) async throws {
        let text = String(decoding: try Self.encoder().encode(usage), as: UTF8.self)
        let database = database
        try await Self.uncancelled { try await database.saveMaintenanceUsage(text, takenAt: usage.takenAt) }
    }

    /// Forgets a removed device's reminders.
    public func forget(_ device: DeviceID) async throws {
        let database = database
        try await Self.uncancelled { try await database.deleteMaintenance(of: device) }
    }

    // MARK: - AlertOutbox

    public func enqueue(_ alert: MaintenanceAlert) async throws {
        let payload = String(decoding: try alert.jsonData(), as: UTF8.self)
        let database = database
        _ = try await Self.uncancelled { try await database.enqueueAlert(id: alert.id, payload: payload, at: alert.at) }
    }

    /// Undelivered alerts, oldest first; a payload that no longer decodes is skipped.
    public func pending(limit: Int) async throws -> [OutboxEntry] {
        try await database.pendingAlerts(limit: limit).compactMap { row in
            guard let alert = try? MaintenanceAlert(jsonData: Data(row.payload.utf8)) else { return nil }
            return OutboxEntry(alert: alert, attempts: row.attempts, lastError: row.lastError)
        }
    }

    public func markDelivered(_ id: String) async throws {
        let database = database
        try await Self.uncancelled { try await database.markAlertDelivered(id) }
    }

    public func recordFailedAttempt(_ id: String, reason: String) async throws -> Int {
        let database = database
        return try await Self.uncancelled { try await database.recordAlertFailure(id, reason: reason) }
    }

    /// Runs a write in a task of its own, so it completes even when the caller was cancelled
    /// (GRDB refuses to start a write in a cancelled task): at shutdown the mark of an alert
    /// the receiver already accepted, or the last states, must still be stored, or the alert
    /// would be sent twice after the restart.
    private static func uncancelled<T: Sendable>(_ write: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await write() }.value
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
