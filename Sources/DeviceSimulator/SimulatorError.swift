/// Why the simulator could not start or do what it was asked, each with the fix.
public enum SimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A profile id the library does not hold.
    case unknownProfile(String, known: [String])
    /// A broker address that is not `mqtt://host:port` or `host:port`.
    case invalidBrokerURL(String)
    /// libmosquitto could not create a client (out of memory or file descriptors).
    case clientCreationFailed(clientID: String)
    /// The wake-up pipe or the loop thread could not be created.
    case systemResource(String, errno: Int32)
    /// The devices.json file could not be written.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownProfile(let id, let known) where known.isEmpty:
            "no device profile '\(id)': no profiles were loaded; name their folder with --profiles DIR"
        case .unknownProfile(let id, let known):
            "no device profile '\(id)'; known profiles: \(known.joined(separator: ", "))"
        case .invalidBrokerURL(let text):
            "'\(text)' is not a broker address; use mqtt://127.0.0.1:1883 or 127.0.0.1:1883 (TLS is not simulated)"
        case .clientCreationFailed(let clientID):
            "libmosquitto could not create client \(clientID); raise the open-file limit (ulimit -n) or free memory"
        case .systemResource(let what, let errno):
            "cannot create \(what) (errno \(errno)); check the process limits"
        case .cannotWrite(let path, let reason):
            "cannot write \(path): \(reason)"
        }
    }
}
