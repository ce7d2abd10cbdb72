/// The packet indicator that starts every packet on an H4 (UART) transport (Core Specification
/// Vol 4 Part A §2). The kernel's `HCI_CHANNEL_USER` socket uses the same byte in front of each
/// packet, so one framing serves UART, TCP and the user channel.
public enum H4PacketType: UInt8, Hashable, Sendable, CustomStringConvertible {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05

    /// Bytes of the header after the indicator, and where its length field sits.
    var headerLength: Int {
        switch self {
        case .command, .sco: 3
        case .event: 2
        case .acl, .iso: 4
        }
    }

    /// The payload length the header declares (`header` holds `headerLength` bytes).
    func payloadLength(header: ArraySlice<UInt8>) -> Int {
        let start = header.startIndex
        switch self {
        case .command, .sco: return Int(header[start + 2])
        case .event: return Int(header[start + 1])
        case .acl: return Int(header[start + 2]) | Int(header[start + 3]) << 8
        case .iso: return (Int(header[start + 2]) | Int(header[start + 3]) << 8) & 0x3FFF
        }
    }

    public var description: String {
        switch self {
        case .command: "HCI command"
        case .acl: "HCI ACL data"
        case .sco: "HCI SCO data"
        case .event: "HCI event"
        case .iso: "HCI ISO data"
        }
    }
}
