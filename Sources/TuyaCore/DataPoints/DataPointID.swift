/// A Tuya data point id ("dp id"): 1 through 255.
///
/// Tuya carries the id in one byte on BLE and as a decimal string key (`"20"`) in
/// MQTT/LAN JSON, and never uses 0 (protocol/TUYA.md §1.8, §3.3).
public struct DataPointID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    /// Fails for 0 and for anything outside 1...255.
    public init?(_ value: Int) {
        guard (1...255).contains(value) else { return nil }
        rawValue = UInt8(value)
    }

    /// Fails for 0.
    public init?(rawValue: UInt8) {
        guard rawValue != 0 else { return nil }
        self.rawValue = rawValue
    }

    /// Parses the JSON key form (`"20"`): plain decimal digits only, no sign or spaces.
    /// Read byte by byte: every key of every report goes through here.
    public init?(jsonKey: String) {
        var value = 0
        var digits = 0
        for byte in jsonKey.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 3 else { return nil }
            value = value * 10 + Int(byte &- UInt8(ascii: "0"))
            digits += 1
        }
        guard digits > 0 else { return nil }
        self.init(value)
    }

    public var intValue: Int { Int(rawValue) }
    public var jsonKey: String { String(rawValue) }
    public var description: String { "DP\(rawValue)" }

    public static func < (lhs: DataPointID, rhs: DataPointID) -> Bool { lhs.rawValue < rhs.rawValue }
}
