/// Why an L2CAP LE connection to a device could not be made, each with what to do.
public enum L2CAPConnectError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Bluetooth cannot be used on this machine at all (kernel, adapter, permissions).
    case unavailable(BLEUnavailable)
    /// Not a device address of the form `AA:BB:CC:DD:EE:FF`.
    case invalidAddress(String)
    /// The device did not accept the connection within the timeout (out of range, off, or
    /// already connected to another central such as a phone).
    case timedOut(address: String, after: Duration)
    /// The kernel refused or broke off the connection.
    case failed(address: String, call: String, errno: Int32, text: String)

    public var description: String {
        switch self {
        case .unavailable(let reason):
            reason.description
        case .invalidAddress(let text):
            "'\(text)' is not a Bluetooth address; write it as six hex pairs, AA:BB:CC:DD:EE:FF"
        case .timedOut(let address, let after):
            "no connection to \(address) within \(after): check that the device is powered, in range, and not "
                + "connected to a phone app (a Tuya device accepts one central at a time)"
        case .failed(let address, let call, let errno, let text):
            "connecting to \(address) failed in \(call): \(text) (errno \(errno)); check the address and its type "
                + "(public or random) from the scan"
        }
    }
}
