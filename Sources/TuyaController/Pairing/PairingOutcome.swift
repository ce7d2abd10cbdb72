import TuyaCore

/// How a pairing attempt (Wi-Fi or BLE) ended. Each failure is a distinct, explained result
/// (ARCHITECTURE.md "Pairing"), not an error: the user fixes the key, powers the device
/// or picks a profile and tries again.
public enum PairingOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The device answered with a decryptable report and a profile fits it.
    case paired(TuyaDevice)
    /// Frames arrived on the device's topic but the local key does not decrypt them.
    case wrongKey
    /// Nothing arrived on the device's topic before the pairing deadline.
    case noAnswer
    /// The device answered, but no profile lists its product id or declares every DP it
    /// reported; `dpsSeen` lets the user pick or write one.
    case unknownProduct(dpsSeen: [DataPointID])
    /// A device with this id is already paired; remove it first to pair it again.
    case alreadyPaired
    /// A pairing or rekey of this id is still waiting for the device (an earlier request
    /// whose caller stopped waiting); it ends within the pairing timeout.
    case pairingUnderWay
    /// The device answered with the key, but the gateway could not save it (disk full,
    /// read-only state directory): it is not paired.
    case notSaved(reason: String)
    /// BLE: the device answered the pair request with "refused": the uuid does not match it.
    case refused
    /// BLE: the gateway could not connect to the device (out of range, powered off, wrong address).
    case notFound(reason: String)
    /// BLE cannot be used on this gateway; `reason` names the fix.
    case bleUnavailable(reason: String)
    /// BLE: the device speaks a protocol version this gateway cannot drive.
    case unsupported(reason: String)
    /// LAN: the device is up but refuses the connection, because another client (the Tuya /
    /// Smart Life app, another integration) holds its one connection.
    case busy
    /// LAN: the device announces a protocol version this gateway does not speak.
    case unsupportedVersion(String)

    public var description: String {
        switch self {
        case .paired(let device): "paired \(device.name) (\(device.id)) with profile \(device.profileID)"
        case .wrongKey: "the device answered but the local key does not decrypt its frames; check the local key"
        case .noAnswer:
            "no answer from the device; it is off, not connected to this broker, or has another local key "
                + "(a device that cannot decrypt the query does not answer)"
        case .unknownProduct(let seen):
            "no profile fits this device (it reported \(seen.map(\.description).joined(separator: ", "))); "
                + "choose a profile id or add one under devices/"
        case .alreadyPaired: "this device is already paired; remove it first to pair it again"
        case .pairingUnderWay:
            "a pairing of this device is still waiting for its answer (it gives up within 15 s); try again then"
        case .notSaved(let reason):
            "the device answered, but the gateway could not save it (\(reason)); it is not paired"
        case .refused:
            "the device refused the pair request (uuid mismatch); check the uuid from the Tuya cloud or the scan"
        case .notFound(let reason): "could not connect to the device: \(reason)"
        case .bleUnavailable(let reason): "BLE cannot be used on this gateway: \(reason)"
        case .unsupported(let reason): "the device cannot be driven: \(reason)"
        case .busy:
            "the device refuses the connection: another app holds it; close the Tuya/Smart Life app or the other integration and try again"
        case .unsupportedVersion(let version):
            "the device speaks protocol \(version.prefix(20)), which this gateway does not (3.1 to 3.5)"
        }
    }
}
