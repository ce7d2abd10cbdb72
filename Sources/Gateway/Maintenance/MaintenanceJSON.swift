import DeepLinks
import Foundation
import Maintenance
import TuyaCore

/// The JSON shapes of maintenance on the bridge (README "The MQTT bridge API"): one
/// reminder of `maintenance/list` and of the retained `<base>/<name>/maintenance`, and an
/// alert of the `maintenance_alert` event.
public enum MaintenanceJSON {
    /// `{"device","friendly_name","type","state","percent_remaining","next_due","snoozed_until",
    /// "last_done","title","body","steps","deeplink"}`; dates ISO 8601, absent ones null.
    public static func reminder(
        _ report: ReminderReport, deviceName: String, routing: RoutingEngine = RoutingEngine()
    ) -> JSONValue {
        .object([
            "device": .string(report.key.device.rawValue),
            "friendly_name": .string(deviceName),
            "type": .string(report.key.type),
            "state": .string(report.status.rawValue),
            "percent_remaining": .integer(Int64(report.percentRemaining)),
            "next_due": date(report.nextDue),
            "snoozed_until": date(report.snoozedUntil),
            "last_done": date(report.lastDone),
            "title": .string(report.title),
            "body": .string(report.body),
            "steps": .array(report.steps.map(JSONValue.string)),
            "deeplink": .string(
                routing.url(for: .tuyaMaintenance(type: report.key.type, deviceID: report.key.device))),
        ])
    }

    /// The alert's own fields (`MaintenanceAlert.jsonData()`) plus `friendly_name`.
    public static func alert(_ alert: MaintenanceAlert, deviceName: String) -> JSONValue {
        .object([
            "id": .string(alert.id),
            "device": .string(alert.device.rawValue),
            "friendly_name": .string(deviceName),
            "type": .string(alert.type),
            "state": .string(alert.state.rawValue),
            "title": .string(alert.title),
            "body": .string(alert.body),
            "deeplink": .string(alert.deeplink),
            "at": date(alert.at),
        ])
    }

    static func date(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .string(date.formatted(.iso8601))
    }
}
