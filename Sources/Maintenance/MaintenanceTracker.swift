import DeepLinks
import Foundation
import TuyaCore

/// The maintenance core the gateway drives: usage counting, the reminder scheduler and
/// alert production in one pure value. Feed it the controller's events and a periodic
/// `tick`; perform the `MaintenanceUpdate` each call returns.
///
/// Alerts: a reminder alerts when it reaches due soon, due or overdue, once per status and
/// round (`ReminderState.needsAlert`); the mark is part of the reminder's state, so storing
/// the update keeps a restart from repeating an alert. While a timer session runs nothing
/// is produced; when it ends, each reminder still not ok and not snoozed alerts for its
/// status then, so an alert for a fault that cleared during the session is never sent.
public struct MaintenanceTracker: Sendable {
    public private(set) var scheduler: ReminderScheduler
    public private(set) var usage: UsageCounter
    public var routing: RoutingEngine
    public private(set) var sessionRunning = false
    /// The fault labels of each device's latest report; absent when unknown.
    private var faults: [DeviceID: Set<String>] = [:]

    /// - Parameters:
    ///   - reminders: states from `MaintenanceStore.reminderStates()`.
    ///   - usage: the last stored snapshot; time since it was taken is not counted.
    public init(
        policy: ReminderPolicy = ReminderPolicy(), reminders: [ReminderState] = [], usage: UsageSnapshot? = nil,
        routing: RoutingEngine = RoutingEngine()
    ) {
        self.scheduler = ReminderScheduler(policy: policy, states: reminders)
        self.usage = usage.map(UsageCounter.init(restoring:)) ?? UsageCounter()
        self.routing = routing
    }

    /// Starts tracking a paired device with its profile's rules.
    public mutating func register(_ device: DeviceID, profile: DeviceProfile, at time: Date) -> MaintenanceUpdate {
        let before = snapshot(of: [device], rules: profile.maintenance)
        var transitions = scheduler.register(
            device, rules: profile.maintenance, usage: usageSeconds(of: device, at: time), at: time)
        transitions += evaluate(device, at: time)
        return finish(devices: [device], before: before, transitions: transitions, at: time)
    }

    /// Stops tracking a removed device; the caller deletes its stored states.
    public mutating func forget(_ device: DeviceID) {
        scheduler.forget(device)
        usage.forget(device)
        faults[device] = nil
    }

    /// A confirmed state report from the device.
    public mutating func observe(state: DeviceState, of device: DeviceID, at time: Date) -> MaintenanceUpdate {
        usage.observe(state: state, of: device, at: time)
        switch state {
        case .diffuser(let diffuser): faults[device] = Set(diffuser.faults)
        case .light: faults[device] = []
        }
        return reevaluate([device], at: time)
    }

    public mutating func deviceOnline(_ device: DeviceID, at time: Date) -> MaintenanceUpdate {
        usage.deviceOnline(device, at: time)
        return reevaluate([device], at: time)
    }

    /// The device went offline: usage stops counting and its faults are unknown (fault
    /// reminders keep their state) until it reports again.
    public mutating func deviceOffline(_ device: DeviceID, at time: Date) -> MaintenanceUpdate {
        usage.deviceOffline(device, at: time)
        faults[device] = nil
        return reevaluate([device], at: time)
    }

    /// Re-evaluates every device: calendar triggers, usage while misting, snoozes ending.
    /// Call it periodically (a minute is plenty) on the injected clock.
    public mutating func tick(at time: Date) -> MaintenanceUpdate {
        reevaluate(scheduler.devices, at: time)
    }

    /// The latest time the reminders hold (a change, a task done, a fault raised or cleared):
    /// for `ClockStepDetector.noteRestored` after restoring them.
    public var latestRecordedTime: Date? {
        scheduler.states.flatMap {
            [$0.statusSince, $0.lastDone, $0.faultRaisedAt, $0.faultClearedAt].compactMap { $0 }
        }
        .max()
    }

    /// The wall clock stepped (`ClockStepDetector`): usage running across the step counts only
    /// the time that passed, and the times taken in the old frame move with it.
    public mutating func clockStepped(_ step: ClockStepDetector.Step) -> MaintenanceUpdate {
        usage.clockStepped(step)
        let devices = scheduler.devices
        let before = snapshot(of: devices)
        scheduler.clockStepped(step)
        return finish(devices: devices, before: before, transitions: [], at: step.actual)
    }

    /// The session engine's state. Ending a session releases the alerts it held back.
    public mutating func setSessionRunning(_ running: Bool, at time: Date) -> MaintenanceUpdate {
        sessionRunning = running
        return reevaluate(scheduler.devices, at: time)
    }

    /// Marks a task done; the update carries the reset write when the rule has one.
    public mutating func markDone(type: String, device: DeviceID, at time: Date) throws(MaintenanceError)
        -> MaintenanceUpdate
    {
        let key = ReminderKey(device: device, type: type)
        let before = snapshot(of: [device])
        let outcome = try scheduler.markDone(
            key, usage: usageSeconds(of: device, at: time), faults: faults[device], at: time)
        var update = finish(
            devices: [device], before: before, transitions: outcome.transition.map { [$0] } ?? [], at: time)
        if let reset = outcome.reset {
            update.resetWrites.append(
                MaintenanceUpdate.ResetWrite(device: device, type: type, dataPoints: [reset.dataPoint: reset.value]))
        }
        return update
    }

    public mutating func snooze(type: String, device: DeviceID, for duration: Duration, at time: Date)
        throws(MaintenanceError) -> MaintenanceUpdate
    {
        let key = ReminderKey(device: device, type: type)
        let before = snapshot(of: [device])
        let transition = try scheduler.snooze(key, for: duration, at: time)
        return finish(devices: [device], before: before, transitions: [transition], at: time)
    }

    /// Every registered reminder, sorted by device and type.
    public func report(at time: Date) -> [ReminderReport] {
        scheduler.devices.flatMap { report(of: $0, at: time) }
    }

    /// One device's reminders in profile order (empty for a device not registered): what
    /// its retained list shows, without evaluating every other device's.
    public func report(of device: DeviceID, at time: Date) -> [ReminderReport] {
        (scheduler.rules(of: device) ?? []).compactMap { rule in
            try? report(type: rule.type, device: device, at: time)
        }
    }

    public func report(type: String, device: DeviceID, at time: Date) throws(MaintenanceError) -> ReminderReport {
        try scheduler.report(
            ReminderKey(device: device, type: type), usage: usageSeconds(of: device, at: time), at: time)
    }

    /// Usage totals for `MaintenanceStore.save(usage:)`; store it on every update and periodically.
    public func usageSnapshot(at time: Date) -> UsageSnapshot { usage.snapshot(at: time) }

    // MARK: - Internals

    private func usageSeconds(of device: DeviceID, at time: Date) -> [Capability: Double] {
        var seconds: [Capability: Double] = [:]
        for capability in UsageCounter.countedCapabilities {
            seconds[capability] = usage.seconds(of: capability, device: device, at: time)
        }
        return seconds
    }

    private mutating func evaluate(_ device: DeviceID, at time: Date) -> [ReminderTransition] {
        scheduler.evaluate(device, usage: usageSeconds(of: device, at: time), faults: faults[device], at: time)
    }

    private mutating func reevaluate(_ devices: [DeviceID], at time: Date) -> MaintenanceUpdate {
        let before = snapshot(of: devices)
        var transitions: [ReminderTransition] = []
        for device in devices { transitions += evaluate(device, at: time) }
        return finish(devices: devices, before: before, transitions: transitions, at: time)
    }

    /// The states of the devices' reminders (`finish` compares only these), looked up by
    /// key: each report of each device takes this path, so it must not sort every state.
    /// `rules` are the rules about to be registered for a device that has none yet.
    private func snapshot(of devices: [DeviceID], rules: [MaintenanceRuleSpec]? = nil) -> [ReminderKey: ReminderState] {
        var states: [ReminderKey: ReminderState] = [:]
        for device in devices {
            for rule in (scheduler.rules(of: device) ?? []) + (rules ?? []) {
                let key = ReminderKey(device: device, type: rule.type)
                if let state = scheduler.state(of: key) { states[key] = state }
            }
        }
        return states
    }

    /// Produces the alerts that are owed (unless a session runs) and collects changed states.
    private mutating func finish(
        devices: [DeviceID], before: [ReminderKey: ReminderState], transitions: [ReminderTransition], at time: Date
    ) -> MaintenanceUpdate {
        var update = MaintenanceUpdate(transitions: transitions)
        for device in devices.sorted() {
            for rule in scheduler.rules(of: device) ?? [] {
                let key = ReminderKey(device: device, type: rule.type)
                guard let state = scheduler.state(of: key) else { continue }
                if !sessionRunning, state.needsAlert {
                    update.alerts.append(MaintenanceAlert(state: state, rule: rule, routing: routing, at: time))
                    scheduler.markAlerted(key)
                }
                if let after = scheduler.state(of: key), after != before[key] {
                    update.reminders.append(after)
                }
            }
        }
        return update
    }
}
