/// Read Buffer Size (Vol 4 Part E §4.1.1, §7.4.5): the controller's ACL buffers shared by
/// BR/EDR and LE. A host uses them for LE only when LE Read Buffer Size reports a length of 0.
public struct HCIReadBufferSizeCommand: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode.readBufferSize
    public var parameters: [UInt8] { [] }

    public init() {}

    /// ACL_Data_Packet_Length (2) · Synchronous_Data_Packet_Length (1) ·
    /// Total_Num_ACL_Data_Packets (2) · Total_Num_Synchronous_Data_Packets (2).
    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError) -> HCIBufferSize {
        var reader = HCIByteReader(bytes, packet: "Read Buffer Size return parameters")
        let length = try reader.uint16("ACL_Data_Packet_Length")
        _ = try reader.uint8("Synchronous_Data_Packet_Length")
        let count = try reader.uint16("Total_Num_ACL_Data_Packets")
        _ = try reader.uint16("Total_Num_Synchronous_Data_Packets")
        try reader.expectEnd()
        return HCIBufferSize(dataPacketLength: length, totalPackets: count)
    }
}

/// How much ACL data the controller buffers: packets of at most `dataPacketLength` bytes of
/// payload, `totalPackets` of them at once (the host's credits).
public struct HCIBufferSize: Hashable, Sendable {
    public var dataPacketLength: UInt16
    public var totalPackets: UInt16

    public init(dataPacketLength: UInt16, totalPackets: UInt16) {
        self.dataPacketLength = dataPacketLength
        self.totalPackets = totalPackets
    }
}
