/// LE Create Connection (Vol 4 Part E §7.8.12): LE_Scan_Interval (2) · LE_Scan_Window (2) ·
/// Initiator_Filter_Policy (1) · Peer_Address_Type (1) · Peer_Address (6) · Own_Address_Type (1)
/// · Connection_Interval_Min (2) · Connection_Interval_Max (2) · Max_Latency (2) ·
/// Supervision_Timeout (2) · Min_CE_Length (2) · Max_CE_Length (2): 25 bytes. Answered by a
/// Command Status, then an LE (Enhanced) Connection Complete when the device is found or the
/// attempt is cancelled.
public struct HCILECreateConnectionCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leCreateConnection

    /// Six bytes, least significant first.
    public var peerAddress: [UInt8]
    /// 0 public, 1 random.
    public var peerAddressType: UInt8
    public var ownAddressType: UInt8
    public var connection: HCIConnectionParameters

    public init(
        peerAddress: [UInt8], peerAddressType: UInt8, ownAddressType: UInt8 = 0,
        connection: HCIConnectionParameters = .tuya
    ) {
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.ownAddressType = ownAddressType
        self.connection = connection
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(connection.scanInterval)
        bytes.appendLittleEndian(connection.scanWindow)
        bytes += [0x00, peerAddressType] + peerAddress.prefix(6) + [ownAddressType]
        return bytes + connection.connectionFields
    }
}
