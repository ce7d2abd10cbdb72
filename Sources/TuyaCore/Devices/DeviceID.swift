/// A device's identity: the Tuya `devId` for Wi-Fi devices, or the id the gateway
/// assigns to a BLE device.
///
/// Ids travel in MQTT topics, file names and deep links, so the charset is strict:
/// ASCII letters, digits, `_` and `-`, 1 to 64 characters.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: String

    public init?(_ rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public static func isValid(_ candidate: String) -> Bool {
        guard (1...64).contains(candidate.utf8.count) else { return false }
        return candidate.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let id = DeviceID(raw) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a device id (letters, digits, _ and -, 1–64 characters)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
