import Foundation

/// Whether a device can be reached. A device that is offline or whose key is wrong is a
/// state, not an error (STYLE.md): commands to it stay pending as desired state.
public enum Availability: String, Hashable, Sendable, CaseIterable {
    /// Not heard from yet since the gateway started.
    case unknown
    case online
    case offline
    /// Frames arrive intact but do not decrypt: the local key is wrong ("local key mismatch").
    case authFailed = "auth_failed"
    /// A LAN device that is up but refuses the gateway's connection: another client (the
    /// Tuya / Smart Life app, another integration) holds its one connection.
    case busy
}

/// A device's availability with the time it was last heard and, when it is not
/// online, a hint a person can act on.
public struct ConnectionStatus: Hashable, Sendable {
    public var availability: Availability
    public var lastSeen: Date?
    /// E.g. "local key mismatch", "no answer to 3 queries".
    public var hint: String?

    public init(availability: Availability, lastSeen: Date? = nil, hint: String? = nil) {
        self.availability = availability
        self.lastSeen = lastSeen
        self.hint = hint
    }
}
