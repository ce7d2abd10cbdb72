import DeepLinks
import Foundation
import Maintenance
import TuyaCore

/// The JSON shapes of maintenance on the bridge (README "The MQTT bridge API"): one
/// reminder of `maintenance/list` and of the retained `<base>/<name>/maintenance`, and an
/// alert of the `maintenance_alert` event.
public enum MaintenanceJSON {
    /// One reminder: dates ISO 8601, absent ones null.
    public struct Reminder: Codable, Hashable, Sendable {
        public var device: String
        public var friendlyName: String
        public var type: String
        public var state: String
        public var percentRemaining: Int
        @NullWhenAbsent public var nextDue: String?
        @NullWhenAbsent public var snoozedUntil: String?
        @NullWhenAbsent public var lastDone: String?
        public var title: String
        public var body: String
        public var steps: [String]
        public var deeplink: String

        enum CodingKeys: String, CodingKey {
            case device, type, state, title, body, steps, deeplink
            case friendlyName = "friendly_name"
            case percentRemaining = "percent_remaining"
            case nextDue = "next_due"
            case snoozedUntil = "snoozed_until"
            case lastDone = "last_done"
        }

        public init(_ report: ReminderReport, deviceName: String, routing: RoutingEngine = RoutingEngine()) {
            device = report.key.device.rawValue
            friendlyName = deviceName
            type = report.key.type
            state = report.status.rawValue
            percentRemaining = report.percentRemaining
            nextDue = MaintenanceJSON.date(report.nextDue)
            snoozedUntil = MaintenanceJSON.date(report.snoozedUntil)
            lastDone = MaintenanceJSON.date(report.lastDone)
            title = report.title
            body = report.body
            steps = report.steps
            deeplink = routing.url(for: .tuyaMaintenance(type: report.key.type, deviceID: report.key.device))
        }
    }

    /// The answer to `maintenance/list`.
    public struct ReminderList: Codable, Hashable, Sendable {
        public var reminders: [Reminder]
    }

    /// The answer to `maintenance/done` and `maintenance/snooze`: the reminder as it is now.
    public struct ReminderAnswer: Codable, Hashable, Sendable {
        public var reminder: Reminder
    }

    /// A `maintenance_alert` event's data: the webhook body's fields, with `friendly_name`
    /// always there (`MaintenanceAlert` leaves it out of alerts queued before it was carried).
    public struct Alert: Codable, Hashable, Sendable {
        public var id: String
        public var device: String
        public var friendlyName: String
        public var type: String
        public var state: String
        public var title: String
        public var body: String
        public var deeplink: String
        public var at: String

        enum CodingKeys: String, CodingKey {
            case id, device, type, state, title, body, deeplink, at
            case friendlyName = "friendly_name"
        }

        public init(_ alert: MaintenanceAlert, deviceName: String) {
            id = alert.id
            device = alert.device.rawValue
            friendlyName = deviceName
            type = alert.type
            state = alert.state.rawValue
            title = alert.title
            body = alert.body
            deeplink = alert.deeplink
            at = alert.at.formatted(.iso8601)
        }
    }

    /// The `maintenance_alert` event's data: `{"alert": {…}}`.
    public struct AlertEvent: Codable, Hashable, Sendable {
        public var alert: Alert
    }

    /// `{"device","friendly_name","type","state","percent_remaining","next_due","snoozed_until",
    /// "last_done","title","body","steps","deeplink"}`; dates ISO 8601, absent ones null.
    public static func reminder(
        _ report: ReminderReport, deviceName: String, routing: RoutingEngine = RoutingEngine()
    ) -> JSONValue {
        BridgeJSON.value(Reminder(report, deviceName: deviceName, routing: routing))
    }

    static func date(_ date: Date?) -> String? {
        date?.formatted(.iso8601)
    }
}
