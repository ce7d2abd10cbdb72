/// Why a LAN session cannot go on. Each case ends the connection: the link closes it and
/// reports the device's availability from the case (protocol/TUYA.md §2.4).
public enum LANSessionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Frames arrive intact but do not open with the local key: a 3.1–3.3 payload that does
    /// not decrypt, or a 3.4/3.5 handshake answer whose HMAC or GCM tag fails under it.
    /// Report as `auth_failed` ("local key mismatch").
    case keyMismatch(String)
    /// The device's handshake answer opened, but its HMAC over our nonce is wrong: it
    /// holds another local key, or it is not the device. Also `auth_failed`.
    case handshakeHMACMismatch
    /// Bytes that are not the protocol: garbage, a corrupted frame, an unexpected message
    /// during the handshake, a refused handshake.
    case malformed(WireError)

    public var description: String {
        switch self {
        case .keyMismatch(let detail):
            "local key mismatch: \(detail) (check the local key)"
        case .handshakeHMACMismatch:
            "local key mismatch: the device's session-key answer is not signed with this local key (check the local key)"
        case .malformed(let error):
            "not a Tuya LAN stream: \(error)"
        }
    }

    /// Whether the failure points at the local key rather than the connection.
    public var isKeyMismatch: Bool {
        switch self {
        case .keyMismatch, .handshakeHMACMismatch: true
        case .malformed: false
        }
    }
}
