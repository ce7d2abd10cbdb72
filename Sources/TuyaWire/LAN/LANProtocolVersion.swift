/// A Tuya LAN protocol version, as a device announces it in its discovery broadcast
/// (`"version":"3.3"`) and as tinytuya's `devices.json` stores it (protocol/TUYA.md §2).
///
/// The version decides everything below the JSON: the frame (55AA or 6699), the integrity
/// check (CRC-32, HMAC-SHA256 or the GCM tag), which payloads are encrypted and where the
/// 15-byte version header goes, and whether a session key is negotiated first.
/// 3.2 is sent and read exactly like 3.3, with "3.2" in its version header.
public enum LANProtocolVersion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case v3_1 = "3.1"
    case v3_2 = "3.2"
    case v3_3 = "3.3"
    case v3_4 = "3.4"
    case v3_5 = "3.5"

    /// Parses "3.3", also written as the number 3.3 (tinytuya `version=3.3`) or with a "v".
    public init?(_ text: String) {
        var trimmed = Substring(text)
        while trimmed.first == " " { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        if trimmed.first == "v" || trimmed.first == "V" { trimmed = trimmed.dropFirst() }
        if trimmed.count > 3, trimmed.hasPrefix("3."), trimmed.dropFirst(3).allSatisfy({ $0 == "0" }) {
            trimmed = trimmed.prefix(3)
        }
        guard let version = LANProtocolVersion(rawValue: String(trimmed)) else { return nil }
        self = version
    }

    public var description: String { rawValue }

    /// The three ASCII bytes that open a version header ("3.3").
    public var versionBytes: [UInt8] { Array(rawValue.utf8) }

    /// 3.4 and 3.5 negotiate a per-connection session key before any data frame (§2.4).
    public var negotiatesSessionKey: Bool { self == .v3_4 || self == .v3_5 }

    /// 3.5 uses 6699 frames sealed with AES-128-GCM; every older version uses 55AA (§2.2).
    public var usesGCMFrames: Bool { self == .v3_5 }

    /// 3.4 replaces the CRC-32 of the 55AA frame with an HMAC-SHA256 keyed by the session key.
    public var usesHMAC: Bool { self == .v3_4 }

    /// Commands that set DPs: CONTROL (7) up to 3.3, CONTROL_NEW (13) from 3.4 (§2.6).
    public var controlCommand: LANCommand { negotiatesSessionKey ? .controlNew : .control }

    /// Commands that read every DP: DP_QUERY (10) up to 3.3, DP_QUERY_NEW (16) from 3.4 (§2.6).
    public var queryCommand: LANCommand { negotiatesSessionKey ? .dpQueryNew : .dpQuery }
}
