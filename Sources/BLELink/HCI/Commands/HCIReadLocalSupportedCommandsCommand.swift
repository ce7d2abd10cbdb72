/// Read Local Supported Commands (Vol 4 Part E §7.4.2): a 64-octet bit mask of the commands the
/// controller implements (§6.27 gives each command its octet and bit).
public struct HCIReadLocalSupportedCommandsCommand: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode.readLocalSupportedCommands
    public var parameters: [UInt8] { [] }

    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError)
        -> HCISupportedCommands
    {
        var reader = HCIByteReader(bytes, packet: "Read Local Supported Commands return parameters")
        let mask = try reader.bytes(64, "Supported_Commands")
        try reader.expectEnd()
        return HCISupportedCommands(mask: mask)
    }
}

/// The Supported_Commands mask.
public struct HCISupportedCommands: Hashable, Sendable {
    public var mask: [UInt8]

    public init(mask: [UInt8]) {
        self.mask = mask
    }

    public func contains(octet: Int, bit: Int) -> Bool {
        octet >= 0 && octet < mask.count && (0..<8).contains(bit) && mask[octet] & (1 << bit) != 0
    }

    /// LE Read Buffer Size [v2]: octet 41, bit 5.
    public var leReadBufferSizeV2: Bool { contains(octet: 41, bit: 5) }
}
