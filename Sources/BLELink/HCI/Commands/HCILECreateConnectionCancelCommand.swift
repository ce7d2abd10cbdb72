/// LE Create Connection Cancel (Vol 4 Part E §7.8.13): stops a connection attempt. The
/// controller answers with Command Complete, then ends the attempt with an LE (Enhanced)
/// Connection Complete whose status is Unknown Connection Identifier (0x02), unless the
/// connection was made first.
public struct HCILECreateConnectionCancelCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leCreateConnectionCancel
    public var parameters: [UInt8] { [] }

    public init() {}
}
