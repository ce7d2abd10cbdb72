/// Set Event Mask (Vol 4 Part E §7.3.1): which events the controller may send. Its default
/// leaves out LE Meta events, so a host that wants any LE event must set it.
public struct HCISetEventMaskCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.setEventMask

    /// Disconnection Complete (bit 4), Hardware Error (15), Data Buffer Overflow (25) and LE
    /// Meta (61): all this host reads besides Command Complete/Status and Number Of Completed
    /// Packets, which cannot be masked.
    public static let leHost = HCISetEventMaskCommand(mask: 1 << 4 | 1 << 15 | 1 << 25 | 1 << 61)

    public var mask: UInt64

    public init(mask: UInt64) {
        self.mask = mask
    }

    public var parameters: [UInt8] { littleEndianBytes(mask) }
}

func littleEndianBytes(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}
