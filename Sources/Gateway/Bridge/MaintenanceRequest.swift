import TuyaCore

/// The maintenance and deep-link verbs of the bridge API (README "The MQTT bridge API"),
/// parsed from untrusted fields into typed values.
public enum MaintenanceRequest: Hashable, Sendable {
    /// `maintenance/list` `{device?}`: every reminder, or one device's.
    case list(device: String?)
    /// `maintenance/done` `{device, type}`.
    case done(device: String, type: String)
    /// `maintenance/snooze` `{device, type, for}`: `for` is `"2d"`, `"3h"`, … or seconds.
    case snooze(device: String, type: String, seconds: Int)
    /// `deeplink/resolve` `{url}`.
    case resolveLink(url: String)

    public static let verbs = ["maintenance/list", "maintenance/done", "maintenance/snooze", "deeplink/resolve"]

    /// Longest `url` accepted before the routing engine judges it (which refuses > 2 KiB itself).
    static let maximumURLBytes = 8 * 1024

    static func parse(verb: String, fields: inout RequestFields) throws(BridgePayloadError) -> MaintenanceRequest {
        switch verb {
        case "maintenance/list":
            let device = try fields.optionalString("device")
            if let device, device.isEmpty || device.count > 64 {
                throw BridgePayloadError(
                    field: "device", reason: "expected a device's friendly name or id (1 to 64 characters)")
            }
            return .list(device: device)
        case "maintenance/done":
            return .done(device: try fields.deviceReference("device"), type: try maintenanceType(&fields))
        case "maintenance/snooze":
            let device = try fields.deviceReference("device")
            let type = try maintenanceType(&fields)
            let seconds: Int
            switch fields.take("for") {
            case nil, .null?:
                throw BridgePayloadError(
                    field: "for", reason: "missing; give a length such as \"2d\", \"3h\" or seconds")
            case .string(let text)?:
                switch SnoozeDuration.seconds(text) {
                case .success(let value): seconds = value
                case .failure(let error): throw BridgePayloadError(field: "for", reason: error.description)
                }
            case let value?:
                guard let number = value.int64Value, let int = Int(exactly: number), int > 0,
                    int <= SnoozeDuration.maximumSeconds
                else {
                    throw BridgePayloadError(
                        field: "for", reason: "expected \"2d\", \"3h\", \"45m\" or a whole number of seconds above 0")
                }
                seconds = int
            }
            return .snooze(device: device, type: type, seconds: seconds)
        case "deeplink/resolve":
            let url = try fields.requiredString("url")
            guard url.utf8.count <= maximumURLBytes else {
                throw BridgePayloadError(field: "url", reason: "\(url.utf8.count) bytes; links are limited to 2048")
            }
            return .resolveLink(url: url)
        default:
            throw BridgePayloadError(field: "verb", reason: "not a maintenance request")
        }
    }

    /// A maintenance type as profiles write them: 1–64 of `a-z`, `0-9`, `-`, `_`.
    private static func maintenanceType(_ fields: inout RequestFields) throws(BridgePayloadError) -> String {
        let type = try fields.requiredString("type")
        guard (1...64).contains(type.utf8.count),
            type.utf8.allSatisfy({
                (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || $0 == 0x5f
            })
        else {
            throw BridgePayloadError(
                field: "type", reason: "expected a maintenance type such as refill or replace-wick")
        }
        return type
    }
}
