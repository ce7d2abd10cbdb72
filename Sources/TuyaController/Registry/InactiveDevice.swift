import TuyaCore

/// A paired device the controller keeps stored but does not drive, and why: it is listed
/// (with its problem), can be removed, and is driven again once paired again or, for a
/// profile, once the profile loads at the next start.
public struct InactiveDevice: Sendable, Hashable {
    public var device: TuyaDevice
    public var reason: Reason
    /// Whether only the device's id and name could be read: its category, transport and
    /// profile in `device` are placeholders, not to be shown.
    public var identityOnly: Bool

    public enum Reason: Sendable, Hashable {
        /// Its profile is missing or did not load.
        case profileNotLoaded
        /// Its stored local key does not make an AES key.
        case unusableKey
        /// Part of its stored row cannot be read: which (`"its desired state"`).
        case damagedRecord(String)
    }

    public init(device: TuyaDevice, reason: Reason, identityOnly: Bool = false) {
        self.device = device
        self.reason = reason
        self.identityOnly = identityOnly
    }

    /// A device of which only the stored id and name read (its category or transport does not).
    public static func damaged(id: DeviceID, name: String, problem: String) -> InactiveDevice {
        InactiveDevice(
            device: TuyaDevice(id: id, name: name, profileID: "", category: .light, transport: .mqtt),
            reason: .damagedRecord(problem), identityOnly: true)
    }
}

/// What `DeviceStore.loadAll()` found: the devices the controller can drive, those it
/// cannot and why, and stored rows too damaged to name a device (one message each).
public struct DeviceLoad: Sendable {
    public var devices: [StoredDevice]
    public var inactive: [InactiveDevice]
    public var unreadable: [String]

    public init(devices: [StoredDevice], inactive: [InactiveDevice] = [], unreadable: [String] = []) {
        self.devices = devices
        self.inactive = inactive
        self.unreadable = unreadable
    }
}
