import TuyaCore

/// An error answer's `data` when the failure has a machine-readable cause:
/// `{"reason": "already_paired"}`, `{"reason": "wrong_key"}`, ….
struct FailureReasonPayload: Codable, Hashable, Sendable {
    var reason: String
}

/// The `pairing_started` event's data: `{"id"}`.
struct PairingStartedPayload: Codable, Hashable, Sendable {
    var id: String
}

/// The `device_paired` event's data: `{"device": <the device as bridge/devices lists it>}`.
struct DevicePairedPayload: Codable, Hashable, Sendable {
    var device: BridgeDevicePayload
}

/// The `pairing_failed` event's data: `{"id", "reason", "message"}`.
struct PairingFailedPayload: Codable, Hashable, Sendable {
    var id: String
    var reason: String
    var message: String
}

/// The answer to `permit_join` and the `permit_join_changed` event's data: `{"value": false}`
/// when closed; when opened `{"value": true, "time": <seconds>}`, with the LAN devices heard
/// broadcasting (`lan_candidates`, unless only BLE was asked for) and `ble` saying why BLE
/// cannot scan (when it was asked for and cannot).
struct PermitJoinPayload: Codable, Hashable, Sendable {
    var value: Bool
    var time: Int64?
    var lanCandidates: [DeviceFoundPayload]?
    var ble: String?

    static let closed = PermitJoinPayload(value: false)

    enum CodingKeys: String, CodingKey {
        case value, time, ble
        case lanCandidates = "lan_candidates"
    }
}

/// The answer to `device/add`: the device as `bridge/devices` lists it, plus its
/// `availability`, `product_id` null when unknown (the shape of an entry of
/// `devices --json`), `warning` when its name looks like another device's, and
/// `already_paired: true` when it was paired before with the same key.
struct DeviceAddedPayload: Encodable, Hashable, Sendable {
    var device: BridgeDevicePayload
    var availability: String
    var warning: String?
    var alreadyPaired: Bool?

    enum CodingKeys: String, CodingKey {
        case availability, warning
        case alreadyPaired = "already_paired"
        case productID = "product_id"
    }

    func encode(to encoder: any Encoder) throws {
        try device.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(availability, forKey: .availability)
        try container.encodeIfPresent(warning, forKey: .warning)
        try container.encodeIfPresent(alreadyPaired, forKey: .alreadyPaired)
        if device.productID == nil { try container.encodeNil(forKey: .productID) }
    }
}

/// The answer to `deeplink/resolve` for a link that resolves: the resolution
/// (`DeepLinkJSON.Outcome`) plus, for a link naming a paired device, its `friendly_name`
/// and, for a maintenance link with a reminder of that type, the `reminder`.
struct ResolvedLinkPayload: Encodable, Hashable, Sendable {
    var outcome: DeepLinkJSON.Outcome
    var friendlyName: String?
    var reminder: MaintenanceJSON.Reminder?

    enum CodingKeys: String, CodingKey {
        case reminder
        case friendlyName = "friendly_name"
    }

    func encode(to encoder: any Encoder) throws {
        try outcome.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(friendlyName, forKey: .friendlyName)
        try container.encodeIfPresent(reminder, forKey: .reminder)
    }
}

/// The answer to `backup`: where the copy was written and its size.
struct BackupPayload: Codable, Hashable, Sendable {
    var path: String
    var sizeBytes: Int64

    enum CodingKeys: String, CodingKey {
        case path
        case sizeBytes = "size_bytes"
    }
}

/// The answer to a `<name>/set` that carried a `transaction`: who, and the state it confirmed
/// (as `<base>/<name>` publishes it).
struct CommandConfirmedPayload: Encodable, Sendable {
    var id: String
    var friendlyName: String
    var state: JSONValue

    enum CodingKeys: String, CodingKey {
        case id, state
        case friendlyName = "friendly_name"
    }
}

/// The `command_failed` event's data: the device and why its command failed.
struct CommandFailedPayload: Codable, Hashable, Sendable {
    var id: String
    var friendlyName: String
    var error: String

    enum CodingKeys: String, CodingKey {
        case id, error
        case friendlyName = "friendly_name"
    }
}

/// The `auth_failed` event's data: the device whose frames do not decrypt, and what to do.
struct AuthFailedPayload: Codable, Hashable, Sendable {
    var id: String
    var friendlyName: String
    var message: String

    enum CodingKeys: String, CodingKey {
        case id, message
        case friendlyName = "friendly_name"
    }
}

/// The `fault_raised` and `fault_cleared` events' data: the device and the faults concerned.
struct FaultsPayload: Codable, Hashable, Sendable {
    var id: String
    var friendlyName: String
    var faults: [String]

    enum CodingKeys: String, CodingKey {
        case id, faults
        case friendlyName = "friendly_name"
    }
}

/// The `maintenance_delivery_failed` event's data: the alert, how often its delivery to
/// the webhook was tried, and why the last try failed.
struct WebhookFailurePayload: Codable, Hashable, Sendable {
    var id: String
    var attempts: Int
    var reason: String
}
