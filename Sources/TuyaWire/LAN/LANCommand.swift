/// A Tuya LAN command code, the 32-bit `cmd` field of 55AA and 6699 frames
/// (protocol/TUYA.md §2.5, TT `core/command_types.py`).
///
/// A struct rather than an enum: a device may send codes this gateway does not know,
/// and those must still decode and show up by number.
public struct LANCommand: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The plaintext 3.1 discovery broadcast on UDP 6666 ([inferred] from tuyapi's `UDP = 0`).
    public static let udp = LANCommand(rawValue: 0x00)
    public static let apConfig = LANCommand(rawValue: 0x01)
    public static let active = LANCommand(rawValue: 0x02)
    public static let sessionKeyStart = LANCommand(rawValue: 0x03)
    public static let sessionKeyResponse = LANCommand(rawValue: 0x04)
    public static let sessionKeyFinish = LANCommand(rawValue: 0x05)
    public static let unbind = LANCommand(rawValue: 0x06)
    public static let control = LANCommand(rawValue: 0x07)
    /// An asynchronous DP report from the device.
    public static let status = LANCommand(rawValue: 0x08)
    public static let heartBeat = LANCommand(rawValue: 0x09)
    public static let dpQuery = LANCommand(rawValue: 0x0A)
    public static let queryWiFi = LANCommand(rawValue: 0x0B)
    public static let tokenBind = LANCommand(rawValue: 0x0C)
    public static let controlNew = LANCommand(rawValue: 0x0D)
    public static let enableWiFi = LANCommand(rawValue: 0x0E)
    public static let wifiInfo = LANCommand(rawValue: 0x0F)
    public static let dpQueryNew = LANCommand(rawValue: 0x10)
    public static let sceneExecute = LANCommand(rawValue: 0x11)
    public static let updateDPs = LANCommand(rawValue: 0x12)
    /// The encrypted discovery broadcast (UDP 6667, 55AA/ECB or 6699/GCM).
    public static let udpNew = LANCommand(rawValue: 0x13)
    public static let apConfigNew = LANCommand(rawValue: 0x14)
    public static let broadcastLPV34 = LANCommand(rawValue: 0x23)
    /// The 3.5 discovery solicitation an app sends to UDP 7000.
    public static let requestDeviceInfo = LANCommand(rawValue: 0x25)
    public static let lanExtStream = LANCommand(rawValue: 0x40)

    /// Tuya's name for the code (TT spelling), or its number.
    public var description: String {
        Self.names[rawValue].map { "\($0) (\(rawValue))" } ?? "command \(rawValue)"
    }

    /// The name alone, for JSON output: "CONTROL_NEW", or nil for an unknown code.
    public var name: String? { Self.names[rawValue] }

    /// Parses a name ("CONTROL", "dp_query_new") or a decimal / 0x-hex number.
    public init?(_ text: String) {
        let upper = text.uppercased()
        if let entry = Self.names.first(where: { $0.value == upper }) {
            self.init(rawValue: entry.key)
            return
        }
        let value = upper.hasPrefix("0X") ? UInt32(upper.dropFirst(2), radix: 16) : UInt32(upper)
        guard let value else { return nil }
        self.init(rawValue: value)
    }

    /// The three session-key negotiation commands (§2.4). Their payloads are nonces and
    /// HMACs, never JSON, and always sealed with the real local key.
    public var isHandshake: Bool { (0x03...0x05).contains(rawValue) }

    /// Whether an outgoing payload of this command gets the 15-byte version header: every
    /// command except those in TT `header.py NO_PROTOCOL_HEADER_CMDS` (§2.3).
    public var carriesVersionHeader: Bool {
        switch self {
        case .dpQuery, .dpQueryNew, .updateDPs, .heartBeat, .sessionKeyStart, .sessionKeyResponse,
            .sessionKeyFinish, .lanExtStream:
            false
        default:
            true
        }
    }

    private static let names: [UInt32: String] = [
        0x00: "UDP", 0x01: "AP_CONFIG", 0x02: "ACTIVE", 0x03: "SESS_KEY_NEG_START", 0x04: "SESS_KEY_NEG_RESP",
        0x05: "SESS_KEY_NEG_FINISH", 0x06: "UNBIND", 0x07: "CONTROL", 0x08: "STATUS", 0x09: "HEART_BEAT",
        0x0A: "DP_QUERY", 0x0B: "QUERY_WIFI", 0x0C: "TOKEN_BIND", 0x0D: "CONTROL_NEW", 0x0E: "ENABLE_WIFI",
        0x0F: "WIFI_INFO", 0x10: "DP_QUERY_NEW", 0x11: "SCENE_EXECUTE", 0x12: "UPDATEDPS", 0x13: "UDP_NEW",
        0x14: "AP_CONFIG_NEW", 0x23: "BOARDCAST_LPV34", 0x25: "REQ_DEVINFO", 0x40: "LAN_EXT_STREAM",
    ]
}
