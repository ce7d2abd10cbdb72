/// Why the LAN simulator could not start, with the fix.
public enum LANSimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The base address is not a 127.x.y.z address, or the devices do not fit after it.
    case invalidAddress(String)
    /// A device could not listen on its address (another simulator or program holds it).
    case cannotListen(address: String, port: Int, reason: String)
    /// Devices need at least one protocol version to speak.
    case noVersions

    public var description: String {
        switch self {
        case .invalidAddress(let text):
            "'\(text)' is not a usable loopback address for simulated LAN devices; give one in 127.0.0.0/8 with room for every device after it"
        case .cannotListen(let address, let port, let reason):
            "cannot listen on \(address):\(port): \(reason); another simulator may hold it, pick another base address"
        case .noVersions:
            "no LAN protocol version given; use for example 3.3,3.4,3.5"
        }
    }
}
