import Foundation

/// Why a command could not be carried out, in terms a person can act on.
public enum ControllerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No paired device has this id or name.
    case unknownDevice(String)
    /// The command does not fit the device's profile (unknown capability, value out of range).
    case invalidCommand(device: DeviceID, reason: String)
    /// The device did not confirm in time. The command is still pending: it stays the
    /// desired state and is re-applied when the device answers again.
    case confirmationTimeout(device: DeviceID, pending: [DataPointID])
    /// The device is offline: the command was not waited for. It stays the desired state,
    /// applied if the device answers again soon (within `devices.reapply_within`).
    case offline(device: DeviceID, lastSeen: Date?, hint: String?)
    /// The controller is shutting down.
    case stopped

    public var description: String {
        switch self {
        case .unknownDevice(let name):
            "no paired device named \(name)"
        case .invalidCommand(let device, let reason):
            "\(device): \(reason)"
        case .confirmationTimeout(let device, let pending):
            "\(device) has not confirmed yet; \(pending.map(\.description).joined(separator: ", ")) still pending and will be re-applied when it answers"
        case .offline(let device, let lastSeen, let hint):
            "\(device) is offline"
                + (lastSeen.map { " since \($0.formatted(.iso8601)) (last heard)" } ?? "")
                + (hint.map { ": \($0)" } ?? "") + "; check that it is powered and connected"
        case .stopped:
            "the controller is stopped"
        }
    }
}
