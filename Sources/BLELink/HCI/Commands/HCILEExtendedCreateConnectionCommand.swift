/// LE Extended Create Connection [v1] (Vol 4 Part E §7.8.66), the counterpart of LE Create
/// Connection on a controller driven with the extended commands: Initiator_Filter_Policy (1) ·
/// Own_Address_Type (1) · Peer_Address_Type (1) · Peer_Address (6) · Initiating_PHYs (1), then
/// per PHY: Scan_Interval (2) · Scan_Window (2) · Connection_Interval_Min (2) · _Max (2) ·
/// Max_Latency (2) · Supervision_Timeout (2) · Min_CE_Length (2) · Max_CE_Length (2). LE 1M only.
public struct HCILEExtendedCreateConnectionCommand: HCICreateConnectionCommand {
    public static let opcode = HCIOpcode.leExtendedCreateConnection

    public var request: HCIConnectionRequest

    public init(request: HCIConnectionRequest) { self.request = request }

    public var parameters: [UInt8] {
        var bytes: [UInt8] =
            [0x00, request.ownAddressType, request.peerAddressType] + request.peerAddress.prefix(6) + [0x01]
        bytes.appendLittleEndian(request.connection.scanInterval)
        bytes.appendLittleEndian(request.connection.scanWindow)
        return bytes + request.connection.connectionFields
    }
}
