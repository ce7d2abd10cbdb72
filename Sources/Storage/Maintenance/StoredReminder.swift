import Foundation
import TuyaCore

/// One maintenance reminder as the database keeps it. `state` is the scheduler's own JSON
/// (the gateway encodes and decodes it), so Storage never depends on the Maintenance
/// module's types; `status` is copied out of it for queries.
public struct StoredReminder: Hashable, Sendable {
    public var device: DeviceID
    public var type: String
    public var status: String
    public var state: String
    public var updatedAt: Date

    public init(device: DeviceID, type: String, status: String, state: String, updatedAt: Date) {
        self.device = device
        self.type = type
        self.status = status
        self.state = state
        self.updatedAt = updatedAt
    }
}

/// One stored change of a reminder, with its time and cause (`fault water_shortage`, `done`).
public struct StoredReminderTransition: Hashable, Sendable {
    public var device: DeviceID
    public var type: String
    public var from: String
    public var to: String
    public var at: Date
    public var cause: String

    public init(device: DeviceID, type: String, from: String, to: String, at: Date, cause: String) {
        self.device = device
        self.type = type
        self.from = from
        self.to = to
        self.at = at
        self.cause = cause
    }
}

/// One alert in the webhook's outbox: its JSON body and how delivery went.
public struct StoredOutboxAlert: Hashable, Sendable {
    public var id: String
    public var payload: String
    public var queuedAt: Date
    public var attempts: Int
    public var lastError: String?
    public var deliveredAt: Date?

    public init(
        id: String, payload: String, queuedAt: Date, attempts: Int, lastError: String?, deliveredAt: Date?
    ) {
        self.id = id
        self.payload = payload
        self.queuedAt = queuedAt
        self.attempts = attempts
        self.lastError = lastError
        self.deliveredAt = deliveredAt
    }
}
