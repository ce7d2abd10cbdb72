import TuyaCore

/// Why a maintenance request was refused; each case says what to do instead.
public enum MaintenanceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The device has no maintenance rules here: it is not paired, or its profile declares none.
    case unknownDevice(DeviceID)
    /// The device's profile has no rule of this type.
    case unknownType(String, device: DeviceID, known: [String])
    /// A snooze must be positive and at most the policy's maximum.
    case invalidSnooze(seconds: Double, maximumSeconds: Double)
    /// The change was made but could not be saved (a full or failing disk): it would be
    /// undone by a restart.
    case notSaved(reason: String)

    public var description: String {
        switch self {
        case .unknownDevice(let device):
            "device \(device) has no maintenance reminders; check the id with 'youll-devices devices'"
        case .unknownType(let type, let device, let known):
            "device \(device) has no '\(type.prefix(40))' reminder; its types are: "
                + (known.isEmpty ? "none" : known.joined(separator: ", "))
        case .invalidSnooze(let seconds, let maximum):
            "a snooze of \(Int(seconds)) s is not allowed; snooze for more than 0 and at most \(Int(maximum / 86_400)) days"
        case .notSaved(let reason):
            "the gateway could not save it (\(reason)); it would be undone if the gateway restarted: "
                + "check the state directory's disk"
        }
    }
}
