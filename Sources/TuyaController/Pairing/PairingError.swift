/// Why a pairing or import request could not even start. Messages never include a local key.
public enum PairingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Device ids are ASCII letters, digits, `_` and `-`, 1–64 characters.
    case invalidDeviceID(String)
    /// The local key is not 16 characters; `reason` says what was wrong, not what it was.
    case invalidLocalKey(device: String, reason: String)
    /// The profile id given does not name a loaded profile.
    case unknownProfile(String)
    /// A tinytuya `devices.json` that cannot be read; `reason` names the entry and field.
    case invalidImport(reason: String)
    /// The controller has not been started or is stopped.
    case notRunning

    public var description: String {
        switch self {
        case .invalidDeviceID(let id):
            "'\(id.prefix(80))' is not a device id (letters, digits, _ and -, 1–64 characters)"
        case .invalidLocalKey(let device, let reason):
            "the local key for \(device.prefix(80)) is not usable: \(reason); copy it again from tinytuya or the Tuya IoT console"
        case .unknownProfile(let id):
            "no profile with id '\(id.prefix(80))'; list the ones under devices/ or omit it to match automatically"
        case .invalidImport(let reason):
            "cannot import devices.json: \(reason)"
        case .notRunning:
            "the controller is not running; start it first"
        }
    }
}
