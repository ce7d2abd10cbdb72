/// Reset (Vol 4 Part E §7.3.2): the controller forgets every connection, scan and setting. The
/// host's first command, so a controller left scanning by a crashed run starts clean.
public struct HCIResetCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.reset
    public var parameters: [UInt8] { [] }

    public init() {}
}
