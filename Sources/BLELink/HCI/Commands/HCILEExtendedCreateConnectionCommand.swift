/// LE Extended Create Connection [v1] (Vol 4 Part E §7.8.66), the counterpart of LE Create
/// Connection on a controller driven with the extended commands: Initiator_Filter_Policy (1) ·
/// Own_Address_Type (1) · Peer_Address_Type (1) · Peer_Address (6) · Initiating_PHYs (1), then
/// per PHY: Scan_Interval (2) · Scan_Window (2) · Connection_Interval_Min (2) · _Max (2) ·
/// Max_Latency (2) · Supervision_Timeout (2) · Min_CE_Length (2) · Max_CE_Length (2). LE 1M only.
public struct HCILEExtendedCreateConnectionCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leExtendedCreateConnection

    public var peerAddress: [UInt8]
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
        var bytes: [UInt8] = [0x00, ownAddressType, peerAddressType] + peerAddress.prefix(6) + [0x01]
        bytes.appendLittleEndian(connection.scanInterval)
        bytes.appendLittleEndian(connection.scanWindow)
        return bytes + connection.connectionFields
    }
}
