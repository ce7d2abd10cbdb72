/// LE Set Event Mask (Vol 4 Part E §7.8.1): which LE Meta subevents the controller may send.
public struct HCILESetEventMaskCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leSetEventMask

    /// LE Connection Complete (bit 0), Advertising Report (1), Connection Update Complete (2),
    /// Data Length Change (6), Enhanced Connection Complete (9) and Extended Advertising Report
    /// (11). With bit 9 set a controller reports connections with the enhanced event.
    public static let leHost = HCILESetEventMaskCommand(mask: 1 << 0 | 1 << 1 | 1 << 2 | 1 << 6 | 1 << 9 | 1 << 11)

    public var mask: UInt64

    public init(mask: UInt64) {
        self.mask = mask
    }

    public var parameters: [UInt8] { littleEndianBytes(mask) }
}
