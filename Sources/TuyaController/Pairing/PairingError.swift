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
    /// A BLE device's profile must be known before connecting (its DPs are typed by the
    /// profile): neither a profile id nor a product id that a BLE profile lists was given.
    case bleProfileNeeded(productID: String?)

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
        case .bleProfileNeeded(let productID):
            if let productID {
                "no BLE profile lists product id '\(productID.prefix(40))'; give a profile id or add the product id to a profile under devices/"
            } else {
                "a BLE device needs its product id (shown by `pair ble --scan`) or a profile id"
            }
        }
    }
}
