import DeepLinks
import Foundation
import TuyaCore

/// What a person is told when a reminder becomes due soon, due or overdue. Every sink
/// (bridge event, retained `youll/<device>/maintenance`, webhook, log) carries this value;
/// its action is `deeplink`, a `youll://tuya/maintenance?…` link built with
/// `RoutingEngine.url(for:)`.
///
/// JSON (the webhook body): `{"id","device","friendly_name","type","state","title","body","deeplink","at"}`
/// with `state` one of `due_soon`, `due`, `overdue` and `at` an ISO 8601 time.
public struct MaintenanceAlert: Codable, Hashable, Sendable, Identifiable {
    /// Stable across restarts: `<device>:<type>:<state>:<round>` (`ReminderState.round`), so a
    /// receiver can drop a repeat and a replayed outbox entry keeps its id.
    public var id: String
    public var device: DeviceID
    public var type: String
    public var state: ReminderStatus
    public var title: String
    public var body: String
    public var deeplink: String
    /// When the alert was produced.
    public var at: Date
    /// The device's friendly name when the alert was produced (the name the user knows);
    /// nil in alerts queued before it was carried.
    public var friendlyName: String?

    enum CodingKeys: String, CodingKey {
        case id, device, type, state, title, body, deeplink, at
        case friendlyName = "friendly_name"
    }

    public init(
        id: String, device: DeviceID, type: String, state: ReminderStatus, title: String, body: String,
        deeplink: String, at: Date
    ) {
        self.id = id
        self.device = device
        self.type = type
        self.state = state
        self.title = title
        self.body = body
        self.deeplink = deeplink
        self.at = at
    }

    /// The alert for a reminder's current status.
    init(state reminder: ReminderState, rule: MaintenanceRuleSpec, routing: RoutingEngine, at time: Date) {
        let key = reminder.key
        self.init(
            id: "\(key.device):\(key.type):\(reminder.status.rawValue):\(reminder.round)",
            device: key.device, type: key.type, state: reminder.status, title: rule.title, body: rule.body,
            deeplink: routing.url(for: .tuyaMaintenance(type: key.type, deviceID: key.device)), at: time)
    }

    /// The webhook body: compact JSON with sorted keys and ISO 8601 dates.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// Reads an alert back from `jsonData()` (an outbox row, a test receiver).
    public init(jsonData data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        self = try decoder.decode(MaintenanceAlert.self, from: data)
    }
}
