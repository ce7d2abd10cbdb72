import Maintenance
import TuyaCore

/// Where the maintenance service announces things besides the webhook: the bridge's event
/// topic and the retained `<base>/<device name>/maintenance`. `BridgeServer` is the real one.
public protocol MaintenancePublisher: Sendable {
    /// A new alert, on `<base>/bridge/event` as `maintenance_alert`.
    func publishMaintenanceAlert(_ alert: MaintenanceAlert, deviceName: String) async
    /// The device's reminders, retained on `<base>/<name>/maintenance` (an empty list clears it).
    func publishMaintenanceReminders(_ reminders: JSONValue, deviceName: String) async
}
