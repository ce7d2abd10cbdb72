import TuyaController
import TuyaCore

extension InactiveDevice {
    /// `problem` on `bridge/devices`.
    public var problem: String {
        switch reason {
        case .profileNotLoaded: "profile \(device.profileID) is not loaded"
        case .unusableKey: "its stored local key is unusable"
        case .damagedRecord(let what): "its stored record is damaged: \(what) cannot be read"
        }
    }

    /// `reason` of its `offline` availability.
    public var availabilityReason: String {
        switch reason {
        case .profileNotLoaded: "profile_not_loaded"
        case .unusableKey: "local_key_unusable"
        case .damagedRecord: "stored_record_damaged"
        }
    }

    /// What brings it back, for the log and for refused requests.
    public var fix: String {
        switch reason {
        case .profileNotLoaded:
            "restore the profile file or fix its errors (see \"profile skipped\" above), then restart the daemon"
        case .unusableKey, .damagedRecord:
            "remove it (youll-devices remove \(device.id)) and pair it again, or restore a backup"
        }
    }
}

extension BridgeDevicePayload {
    /// A paired device that cannot be driven: who it is, no capabilities, and its `problem`.
    public init(_ inactive: InactiveDevice, profile: DeviceProfile?) {
        self.init(inactive.device, profile: inactive.identityOnly ? nil : profile)
        capabilities = []
        problem = inactive.problem
        if inactive.identityOnly {
            (transport, category, self.profile) = ("unknown", "unknown", "")
            (model, manufacturer) = (nil, nil)
        }
    }
}
