import TuyaCore

/// `<base>/bridge/state` and `<base>/<name>/availability` (retained): `{"state":"online"}`
/// or `{"state":"offline"}`, with the availability as `reason` when a device is neither
/// (Home Assistant's availability templates read `state`).
public struct AvailabilityPayload: Codable, Hashable, Sendable {
    public var state: String
    public var reason: String?

    public static let online = AvailabilityPayload(state: "online")
    public static let offline = AvailabilityPayload(state: "offline")

    public init(state: String, reason: String? = nil) {
        self.state = state
        self.reason = reason
    }

    /// A device's availability: `online` only when it is.
    public init(_ availability: Availability) {
        self.init(state: availability == .online ? "online" : "offline")
        if availability != .online, availability != .offline { reason = availability.rawValue }
    }
}

/// The answer to `device/remove` and `device/rekey`, and the `device_removed` event's data.
public struct DeviceIdentityPayload: Codable, Hashable, Sendable {
    public var id: String
    public var friendlyName: String

    public init(_ device: TuyaDevice) {
        id = device.id.rawValue
        friendlyName = device.name
    }

    enum CodingKeys: String, CodingKey {
        case id
        case friendlyName = "friendly_name"
    }
}

/// The answer to `device/rename` (with `warning` when the new name looks like another
/// device's), and the `device_renamed` event's data (without).
public struct DeviceRenamedPayload: Codable, Hashable, Sendable {
    public var id: String
    public var from: String
    public var to: String
    public var warning: String?
}
