import DeepLinks
import Maintenance
import TuyaCore

extension BridgeServer {
    /// Performs `maintenance/…` and `deeplink/resolve`.
    func performMaintenance(_ request: MaintenanceRequest) async throws -> [String: JSONValue] {
        if case .resolveLink(let url) = request { return BridgeJSON.object(try await resolveLink(url)) }
        guard let service = maintenance else {
            throw BridgeFailure(message: "maintenance is switched off in the configuration (maintenance.enabled)")
        }
        switch request {
        case .list(let reference):
            var device: DeviceID?
            if let reference { device = try await resolve(reference, field: "device").id }
            let reports = await service.reminders(of: device)
            return BridgeJSON.object(
                MaintenanceJSON.ReminderList(
                    reminders: reports.map { MaintenanceJSON.Reminder($0.report, deviceName: $0.deviceName) }))
        case .done(let reference, let type):
            let device = try await resolve(reference, field: "device")
            do {
                let report = try await service.markDone(type: type, device: device.id)
                databaseProblem = nil
                return BridgeJSON.object(
                    MaintenanceJSON.ReminderAnswer(reminder: MaintenanceJSON.Reminder(report, deviceName: device.name)))
            } catch {
                if case .notSaved(let reason) = error { throw savingFailed(reason) }
                throw BridgeFailure(message: "type: \(error)")
            }
        case .snooze(let reference, let type, let seconds):
            let device = try await resolve(reference, field: "device")
            do {
                let report = try await service.snooze(type: type, device: device.id, seconds: seconds)
                databaseProblem = nil
                return BridgeJSON.object(
                    MaintenanceJSON.ReminderAnswer(reminder: MaintenanceJSON.Reminder(report, deviceName: device.name)))
            } catch {
                if case .notSaved(let reason) = error { throw savingFailed(reason) }
                let field = if case .invalidSnooze = error { "for" } else { "type" }
                throw BridgeFailure(message: "\(field): \(error)")
            }
        case .resolveLink:
            return [:]
        }
    }

    /// A maintenance change that could not be saved: the answer is an error, and health
    /// stays degraded until a write succeeds again.
    private func savingFailed(_ reason: String) -> BridgeFailure {
        databaseProblem = "could not save a maintenance reminder: \(reason)"
        metrics.databaseWritesFailed.increment()
        return BridgeFailure(message: MaintenanceError.notSaved(reason: reason).description)
    }

    /// Resolves a link against the live registry; a link that cannot be resolved is an
    /// error whose message names the field, with the details in `data`. A proceeding
    /// maintenance link carries the reminder, a device link the device's name.
    private func resolveLink(_ url: String) async throws -> ResolvedLinkPayload {
        let context = await routeContext()
        let (outcome, resolved) = DeepLinkJSON.outcome(url, context: context)
        metrics.recordRouteResolution(outcome.resolution)
        guard resolved else {
            let message = outcome.message ?? "the link cannot be resolved"
            throw BridgeFailure(message: "url: \(message)", data: BridgeJSON.object(outcome))
        }
        var answer = ResolvedLinkPayload(outcome: outcome)
        if let raw = outcome.destination?.device, let id = DeviceID(raw), let device = await controller.device(id) {
            answer.friendlyName = device.name
            if let type = outcome.destination?.type, let service = maintenance,
                let report = await service.reminders(of: id).first(where: { $0.report.key.type == type })
            {
                answer.reminder = MaintenanceJSON.Reminder(report.report, deviceName: device.name)
            }
        }
        return answer
    }

    private func routeContext() async -> RouteContext {
        if let maintenance { return await maintenance.routeContext() }
        let devices = await controller.devices()
        return .gateway(
            devices: devices.map { ($0.id, $0.profileID) }, library: library, presets: settings.presets,
            sessionRunning: await sessions?.isActive ?? false, universalLinkHosts: settings.universalLinkHosts,
            names: Dictionary(devices.map { ($0.id, $0.name) }) { first, _ in first })
    }
}

extension BridgePublisher: MaintenancePublisher {
    public func publishMaintenanceAlert(_ alert: MaintenanceAlert, deviceName: String) async {
        await emit(
            "maintenance_alert", device: alert.device,
            BridgeJSON.object(MaintenanceJSON.AlertEvent(alert: MaintenanceJSON.Alert(alert, deviceName: deviceName))))
    }

    public func publishMaintenanceReminders(_ reminders: JSONValue, deviceName: String) async {
        if case .array(let list) = reminders, list.isEmpty {
            clearRetained(topics.maintenance(deviceName))
        } else {
            publish(topics.maintenance(deviceName), reminders, retain: true)
        }
    }
}
