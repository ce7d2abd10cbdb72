import Foundation

/// A durable queue of alerts waiting for one receiver (the webhook), so nothing is lost
/// while the receiver is down or the gateway restarts. Storage implements it on SQLite;
/// `InMemoryAlertOutbox` is for tests.
public protocol AlertOutbox: Sendable {
    /// Queues an alert. Idempotent by `alert.id`: an id queued before, delivered or not, is
    /// not queued again, so replaying an update after a crash does not duplicate it.
    func enqueue(_ alert: MaintenanceAlert) async throws
    /// Alerts not yet delivered, oldest first, at most `limit`.
    func pending(limit: Int) async throws -> [OutboxEntry]
    /// The receiver accepted the alert; it is never returned by `pending` again.
    func markDelivered(_ id: String) async throws
    /// Counts a failed attempt and returns the attempts so far (including this one).
    func recordFailedAttempt(_ id: String, reason: String) async throws -> Int
}

/// One queued alert and how often sending it failed.
public struct OutboxEntry: Hashable, Sendable {
    public var alert: MaintenanceAlert
    public var attempts: Int
    /// Why the last attempt failed (`HTTP 503`, `connection refused`), for `doctor` and logs.
    public var lastError: String?

    public init(alert: MaintenanceAlert, attempts: Int = 0, lastError: String? = nil) {
        self.alert = alert
        self.attempts = attempts
        self.lastError = lastError
    }
}

/// An `AlertOutbox` in memory, for tests and for running without a database.
public actor InMemoryAlertOutbox: AlertOutbox {
    private var queue: [OutboxEntry] = []
    private var known: Set<String> = []
    private var delivered: [String] = []

    public init() {}

    public func enqueue(_ alert: MaintenanceAlert) {
        guard known.insert(alert.id).inserted else { return }
        queue.append(OutboxEntry(alert: alert))
    }

    public func pending(limit: Int) -> [OutboxEntry] { Array(queue.prefix(max(0, limit))) }

    public func markDelivered(_ id: String) {
        guard let index = queue.firstIndex(where: { $0.alert.id == id }) else { return }
        queue.remove(at: index)
        delivered.append(id)
    }

    public func recordFailedAttempt(_ id: String, reason: String) -> Int {
        guard let index = queue.firstIndex(where: { $0.alert.id == id }) else { return 0 }
        queue[index].attempts += 1
        queue[index].lastError = reason
        return queue[index].attempts
    }

    /// Ids marked delivered, in order.
    public var deliveredIDs: [String] { delivered }
}
