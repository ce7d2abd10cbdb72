/// Everything a Tuya frame decoder or encoder can reject, each case naming what was
/// wrong so a log line or CLI message says what to do.
///
/// `keyMismatch` is kept apart from corruption on purpose: a frame that is intact
/// (its CRC or length checks out) but decrypts to garbage means the local key is
/// wrong, and callers report it as "check the local key", not as a broken link.
public enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the layout needs.
    case truncated(what: String, needed: Int, available: Int)
    /// A length or count field outside what the buffer or a sane cap allows.
    case lengthOutOfRange(field: String, value: Int, limit: Int)
    /// A version string or number this codec does not speak.
    case unsupportedVersion(String)
    /// A checksum over intact-looking bytes did not match: corruption in transit.
    case checksumMismatch(what: String, expected: UInt32, actual: UInt32)
    /// PKCS#7 or zero padding is not well formed.
    case badPadding(String)
    /// The frame is intact but decrypts to garbage: the key is wrong.
    case keyMismatch(String)
    /// A key, IV or srand has the wrong size or form.
    case invalidKey(String)
    /// The JSON body is not valid JSON or not the expected shape.
    case malformedJSON(String)
    /// A field the protocol requires is absent.
    case missingField(String)
    /// A field is present but its value is not acceptable.
    case invalidField(field: String, reason: String)
    /// A LEB128 varint longer than 4 bytes (protocol/TUYA.md §1.3).
    case varintTooLong
    /// BLE packet numbers must be consecutive (protocol/TUYA.md §1.3).
    case packetOutOfOrder(expected: Int, got: Int)
    /// A BLE security flag this codec does not handle.
    case unknownSecurityFlag(UInt8)
    /// A data point that cannot be encoded or decoded.
    case invalidDataPoint(id: Int, reason: String)
    /// An HMAC-SHA256 trailer (LAN 3.4) or AES-GCM tag (LAN 3.5, discovery) did not verify:
    /// the frame was sealed with another key, or changed on the way (protocol/TUYA.md §2.2).
    case authenticationFailed(what: String)
    /// A LAN 3.4/3.5 data frame was asked for before the session-key handshake finished
    /// (protocol/TUYA.md §2.4).
    case sessionNotEstablished(String)
    /// Anything else structurally wrong, with what and where.
    case malformed(String)

    public var description: String {
        switch self {
        case .truncated(let what, let needed, let available):
            "truncated \(what): needs \(needed) bytes, has \(available)"
        case .lengthOutOfRange(let field, let value, let limit):
            "\(field) \(value) is out of range (limit \(limit))"
        case .unsupportedVersion(let version):
            "unsupported protocol version \(version)"
        case .checksumMismatch(let what, let expected, let actual):
            "\(what) mismatch: frame says \(hex(expected)), computed \(hex(actual)) (corrupted frame)"
        case .badPadding(let detail):
            "bad padding: \(detail)"
        case .keyMismatch(let detail):
            "cannot decrypt: \(detail) (check the local key)"
        case .invalidKey(let detail):
            "invalid key: \(detail)"
        case .malformedJSON(let detail):
            "malformed JSON: \(detail)"
        case .missingField(let field):
            "missing field \(field)"
        case .invalidField(let field, let reason):
            "invalid \(field): \(reason)"
        case .varintTooLong:
            "varint longer than 4 bytes"
        case .packetOutOfOrder(let expected, let got):
            "packet \(got) out of order (expected \(expected))"
        case .unknownSecurityFlag(let flag):
            "unknown security flag \(flag)"
        case .invalidDataPoint(let id, let reason):
            "invalid DP \(id): \(reason)"
        case .authenticationFailed(let what):
            "\(what) does not verify (wrong key, or the frame was altered)"
        case .sessionNotEstablished(let detail):
            "no session key yet: \(detail) (finish the 3.4/3.5 handshake first)"
        case .malformed(let detail):
            "malformed frame: \(detail)"
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
