/// LE Data Length Change (subevent 0x07, Vol 4 Part E §7.7.65.7): Connection_Handle (2) ·
/// Max_TX_Octets (2) · Max_TX_Time (2) · Max_RX_Octets (2) · Max_RX_Time (2). The link-layer
/// payload size on air; informative for the host (HCI buffer sizes still bound what it sends).
public struct HCILEDataLengthChange: Hashable, Sendable {
    public static let subevent: UInt8 = 0x07

    public var handle: UInt16
    public var maxTxOctets: UInt16
    public var maxTxTime: UInt16
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16
}

extension HCILEDataLengthChange {
    public init(parameters: some Collection<UInt8>) throws(HCIPacketError) {
        var reader = HCIByteReader(parameters, packet: "LE Data Length Change event")
        handle = try reader.uint16("Connection_Handle") & 0x0FFF
        maxTxOctets = try reader.uint16("Max_TX_Octets")
        maxTxTime = try reader.uint16("Max_TX_Time")
        maxRxOctets = try reader.uint16("Max_RX_Octets")
        maxRxTime = try reader.uint16("Max_RX_Time")
        try reader.expectEnd()
    }
}
