/// LE Create Connection (Vol 4 Part E §7.8.12): LE_Scan_Interval (2) · LE_Scan_Window (2) ·
/// Initiator_Filter_Policy (1) · Peer_Address_Type (1) · Peer_Address (6) · Own_Address_Type (1)
/// · Connection_Interval_Min (2) · Connection_Interval_Max (2) · Max_Latency (2) ·
/// Supervision_Timeout (2) · Min_CE_Length (2) · Max_CE_Length (2): 25 bytes.
public struct HCILECreateConnectionCommand: HCICreateConnectionCommand {
    public static let opcode = HCIOpcode.leCreateConnection

    public var request: HCIConnectionRequest

    public init(request: HCIConnectionRequest) { self.request = request }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(request.connection.scanInterval)
        bytes.appendLittleEndian(request.connection.scanWindow)
        bytes += [0x00, request.peerAddressType] + request.peerAddress.prefix(6) + [request.ownAddressType]
        return bytes + request.connection.connectionFields
    }
}
