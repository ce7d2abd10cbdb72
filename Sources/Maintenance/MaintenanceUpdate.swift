import TuyaCore

/// What one `MaintenanceTracker` call asks the caller to do, in this order: store
/// `reminders` and `transitions` (one transaction), hand `alerts` to every sink (the
/// webhook's outbox in the same transaction when it shares the database), send `resetWrites`.
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
