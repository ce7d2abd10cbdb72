import DeepLinks
import Foundation
import Maintenance
import TuyaCore

/// What the bridge and the CLI ask of the maintenance service: the reminders, "done",
/// snooze, what links resolve against, and renames.
extension MaintenanceService {

    /// Returns once `run()` has loaded the stored states and registered the paired devices,
    /// so a request right after a restart sees every reminder.
    public func waitUntilLoaded() async {
        guard !loaded else { return }
        await withCheckedContinuation { loadWaiters.append($0) }
    }

    /// Reports of every reminder, or of one device's.
    public func reminders(of device: DeviceID? = nil) async -> [(report: ReminderReport, deviceName: String)] {
        await waitUntilLoaded()
        return currentReminders(of: device)
    }

    func currentReminders(of device: DeviceID?) -> [(report: ReminderReport, deviceName: String)] {
        let time = now()
        let reports = device.map { tracker.report(of: $0, at: time) } ?? tracker.report(at: time)
        return reports.map { ($0, names[$0.key.device] ?? $0.key.device.rawValue) }
    }

    /// Marks a task done (idempotent) and returns the reminder afterwards.
    public func markDone(type: String, device: DeviceID) async throws(MaintenanceError) -> ReminderReport {
        await waitUntilLoaded()
        try refuseWhileUnreadable()
        let time = await currentTime()
        let update = try tracker.markDone(type: type, device: device, at: time)
        if let failure = await perform(update) { throw .notSaved(reason: failure) }
        // Done on a reminder that was already fine changes no state, but whoever pressed
        // the button sees it acknowledged on the retained list all the same.
        if !update.reminders.contains(where: { $0.key.device == device }) { await publishReminders(of: device) }
        logger.info("maintenance: \(type) of \(name(of: device)) marked done")
        return try tracker.report(type: type, device: device, at: time)
    }

    /// Holds a reminder's alerts for `seconds`.
    public func snooze(type: String, device: DeviceID, seconds: Int) async throws(MaintenanceError)
        -> ReminderReport
    {
        await waitUntilLoaded()
        try refuseWhileUnreadable()
        let time = await currentTime()
        let update = try tracker.snooze(type: type, device: device, for: .seconds(seconds), at: time)
        if let failure = await perform(update) { throw .notSaved(reason: failure) }
        logger.info("maintenance: \(type) of \(name(of: device)) snoozed for \(seconds) s")
        return try tracker.report(type: type, device: device, at: time)
    }

    /// What links resolve against now: paired devices with their profiles' maintenance
    /// types, the presets, whether a session runs, the universal-link hosts.
    public func routeContext() async -> RouteContext {
        let devices = await controller.devices()
        return .gateway(
            devices: devices.map { ($0.id, $0.profileID) }, library: library, presets: settings.presets,
            sessionRunning: sessionRunning, universalLinkHosts: settings.universalLinkHosts,
            names: Dictionary(devices.map { ($0.id, $0.name) }) { first, _ in first })
    }

    public func name(of device: DeviceID) -> String { names[device] ?? device.rawValue }

    /// The device was renamed: its reminders are published under the new name from now on,
    /// starting now (the bridge clears the old name's topics once this reached the broker).
    public func deviceRenamed(_ device: DeviceID, to name: String) async {
        guard names[device] != nil else { return }
        names[device] = name
        await publishReminders(of: device)
    }

    /// Publishes every device's reminders again (after the broker forgot what was retained).
    /// Before the stored states are loaded there is nothing to say: loading publishes them.
    public func republishReminders() async {
        guard loaded else { return }
        for device in names.keys.sorted() { await publishReminders(of: device) }
    }

    /// While the stored reminders cannot be read, a change could not be saved over them.
    private func refuseWhileUnreadable() throws(MaintenanceError) {
        if let storeUnreadable { throw .notSaved(reason: "the stored reminders could not be read: \(storeUnreadable)") }
    }
}
