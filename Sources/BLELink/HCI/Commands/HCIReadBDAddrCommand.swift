/// Read BD_ADDR (Vol 4 Part E §7.4.6): the controller's public address, for logs and `doctor`.
/// A controller without one answers 00:00:00:00:00:00.
public struct HCIReadBDAddrCommand: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode.readBDAddr
    public var parameters: [UInt8] { [] }

    public init() {}

    /// BD_ADDR (6, least significant byte first) → `AA:BB:CC:DD:EE:FF`.
    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError) -> String {
        var reader = HCIByteReader(bytes, packet: "Read BD_ADDR return parameters")
        let address = try reader.bytes(6, "BD_ADDR")
        try reader.expectEnd()
        return AdvertisingReport.addressText(littleEndian: address)
    }
}
