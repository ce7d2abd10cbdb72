/// What the Maintenance module needs from the database; Storage implements it on SQLite.
/// The webhook's queue is a separate protocol, `AlertOutbox`.
public protocol MaintenanceStore: Sendable {
    /// Every stored reminder state, for `MaintenanceTracker(reminders:)` at start.
    func reminderStates() async throws -> [ReminderState]
    /// Stores changed states together with the transitions that changed them, in one
    /// transaction (an update's `reminders` and `transitions`).
    func save(reminders: [ReminderState], transitions: [ReminderTransition]) async throws
    /// The latest usage snapshot, or nil before the first.
    func usageSnapshot() async throws -> UsageSnapshot?
    func save(usage: UsageSnapshot) async throws
}
