import TuyaCore

/// What one `MaintenanceTracker` call asks the caller to do, in this order: hand `alerts`
/// to the durable sinks (the webhook's outbox, which ignores an id it has seen), then store
/// `reminders` and `transitions` (one transaction), then the other sinks and `resetWrites`.
/// A crash between the steps then repeats an alert with the same id (dropped by the outbox)
/// rather than losing it, since the alert mark is part of the stored reminder state.
public struct MaintenanceUpdate: Hashable, Sendable {
    /// One device write that resets its own counter after a task was marked done.
    public struct ResetWrite: Hashable, Sendable {
        public var device: DeviceID
        public var type: String
        /// DP id → value, ready for the controller's raw DP write path.
        public var dataPoints: DataPoints

        public init(device: DeviceID, type: String, dataPoints: DataPoints) {
            self.device = device
            self.type = type
            self.dataPoints = dataPoints
        }
    }

    public var transitions: [ReminderTransition] = []
    /// Reminder states that changed (status, baselines, snooze or the alert mark), to store.
    public var reminders: [ReminderState] = []
    public var alerts: [MaintenanceAlert] = []
    public var resetWrites: [ResetWrite] = []

    public init(
        transitions: [ReminderTransition] = [], reminders: [ReminderState] = [], alerts: [MaintenanceAlert] = [],
        resetWrites: [ResetWrite] = []
    ) {
        self.transitions = transitions
        self.reminders = reminders
        self.alerts = alerts
        self.resetWrites = resetWrites
    }

    public var isEmpty: Bool { transitions.isEmpty && reminders.isEmpty && alerts.isEmpty && resetWrites.isEmpty }
}

extension MaintenanceUpdate {
    /// Appends another update's work after this one's; a reminder in both keeps the other's state.
    public mutating func merge(_ other: MaintenanceUpdate) {
        transitions += other.transitions
        alerts += other.alerts
        resetWrites += other.resetWrites
        guard !other.reminders.isEmpty else { return }
        let replaced = Set(other.reminders.map(\.key))
        reminders.removeAll { replaced.contains($0.key) }
        reminders += other.reminders
    }
}
