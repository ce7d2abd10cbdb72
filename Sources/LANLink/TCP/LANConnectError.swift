/// Why a TCP connection to a Tuya LAN device could not be made, in terms a person can act
/// on. `refused` matters most: a powered device that refuses usually has another client
/// connected (the Tuya / Smart Life app, another integration), since the firmware takes one.
public enum LANConnectError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The device answered with a reset: nothing listens, or another client holds it.
    case refused(host: String)
    /// No answer within the timeout: off, unplugged, or no longer at this address.
    case timedOut(host: String, after: Duration)
    /// No route to the address (another subnet or VLAN, or the host is down).
    case unreachable(host: String, reason: String)
    /// `host` is not an address this gateway can connect to.
    case invalidAddress(String)

    public var description: String {
        switch self {
        case .refused(let host):
            "\(host) refused the connection (another app may hold the device: close the Tuya/Smart Life app or the other integration)"
        case .timedOut(let host, let after):
            "no answer from \(host) within \(after.components.seconds) s (is the device powered and still at this address?)"
        case .unreachable(let host, let reason):
            "\(host) is unreachable: \(reason)"
        case .invalidAddress(let host):
            "'\(host.prefix(80))' is not an IP address"
        }
    }
}
