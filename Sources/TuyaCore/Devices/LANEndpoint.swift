/// Where the gateway reaches a Tuya LAN device and how it speaks: its IPv4 address (TCP
/// 6668), its protocol version ("3.3"), and the random, non-zero source id the gateway
/// puts in its 3.5 frames' headers (kept across restarts; other clients start their
/// sequence numbers at 1 on every connection, and 3.5 devices answer them). Stored beside
/// the device; the local key stays with the other secrets.
public struct LANEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The versions this gateway speaks.
    public static let versions: Set<String> = ["3.1", "3.2", "3.3", "3.4", "3.5"]

    /// Dotted IPv4, e.g. `192.168.1.40`.
    public var ip: String
    /// "3.1" … "3.5".
    public var version: String
    public var sourceID: UInt32

    /// Validates untrusted text (an import, a request, a broadcast).
    public init(ip: String, version: String, sourceID: UInt32) throws(LANEndpointError) {
        guard Self.isIPv4(ip) else { throw .invalidIP(String(ip.prefix(60))) }
        guard Self.versions.contains(version) else { throw .unsupportedVersion(String(version.prefix(20))) }
        guard sourceID != 0 else { throw .zeroSourceID }
        self.ip = ip
        self.version = version
        self.sourceID = sourceID
    }

    public var description: String { "\(ip) (protocol \(version))" }

    /// Four decimal octets 0–255 without leading zeros or signs.
    public static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                part.count == 1 || part.first != "0", let value = Int(part)
            else { return false }
            return value <= 255
        }
    }
}

public enum LANEndpointError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidIP(String)
    case unsupportedVersion(String)
    case zeroSourceID

    public var description: String {
        switch self {
        case .invalidIP(let text): "'\(text)' is not an IPv4 address (expected four numbers such as 192.168.1.40)"
        case .unsupportedVersion(let text):
            "protocol version '\(text)' is not one this gateway speaks (3.1, 3.2, 3.3, 3.4 or 3.5)"
        case .zeroSourceID: "the 3.5 source id must not be 0"
        }
    }
}
