/// LE Read Buffer Size, [v1] (Vol 4 Part E §7.8.2) or [v2] (§7.8.2, opcode 0x2060, which adds
/// the ISO buffers). A length or count of 0 means LE shares the BR/EDR buffers of Read Buffer
/// Size.
public struct HCILEReadBufferSizeCommand: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode.leReadBufferSize
    public var parameters: [UInt8] { [] }

    public init() {}

    /// LE_ACL_Data_Packet_Length (2) · Total_Num_LE_ACL_Data_Packets (1).
    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError) -> HCIBufferSize {
        var reader = HCIByteReader(bytes, packet: "LE Read Buffer Size return parameters")
        let length = try reader.uint16("LE_ACL_Data_Packet_Length")
        let count = try reader.uint8("Total_Num_LE_ACL_Data_Packets")
        try reader.expectEnd()
        return HCIBufferSize(dataPacketLength: length, totalPackets: UInt16(count))
    }
}

/// LE Read Buffer Size [v2]: the LE ACL buffers as in [v1], then the ISO buffers (which this
/// host does not use).
public struct HCILEReadBufferSizeV2Command: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode.leReadBufferSizeV2
    public var parameters: [UInt8] { [] }

    public init() {}

    /// LE_ACL_Data_Packet_Length (2) · Total_Num_LE_ACL_Data_Packets (1) ·
    /// ISO_Data_Packet_Length (2) · Total_Num_ISO_Data_Packets (1).
    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError) -> HCIBufferSize {
        var reader = HCIByteReader(bytes, packet: "LE Read Buffer Size [v2] return parameters")
        let length = try reader.uint16("LE_ACL_Data_Packet_Length")
        let count = try reader.uint8("Total_Num_LE_ACL_Data_Packets")
        _ = try reader.uint16("ISO_Data_Packet_Length")
        _ = try reader.uint8("Total_Num_ISO_Data_Packets")
        try reader.expectEnd()
        return HCIBufferSize(dataPacketLength: length, totalPackets: UInt16(count))
    }
}
