/// The answers a central owes on the LE fixed channels other than ATT, so that a device is never
/// left waiting (it would drop the link when its own timer runs out):
///
/// - LE signaling (CID 5, Core Specification Vol 3 Part A §4): a Connection Parameter Update
///   Request is answered "rejected" (the host keeps the parameters it asked for); any other
///   request gets a Command Reject "command not understood". Responses and rejects are not
///   answered, so two hosts cannot loop.
/// - Security Manager (CID 6, Vol 3 Part H §3.5.5): Tuya BLE encrypts above GATT and needs no
///   pairing, so any SMP PDU but Pairing Failed is answered Pairing Failed, "pairing not
///   supported".
public enum L2CAPFixedChannelResponder {
    static let commandReject: UInt8 = 0x01
    static let connectionParameterUpdateRequest: UInt8 = 0x12
    static let connectionParameterUpdateResponse: UInt8 = 0x13
    /// LE signaling requests (Vol 3 Part A Table 4.2): disconnection, parameter update, credit
    /// based connection, enhanced credit based connection and reconfigure requests.
    static let requests: Set<UInt8> = [0x06, 0x12, 0x14, 0x17, 0x19]
    static let pairingFailed: UInt8 = 0x05
    static let pairingNotSupported: UInt8 = 0x05

    /// The frame to send back for `frame`, nil when none is owed (or the channel is not one of
    /// these). Malformed signaling packets get nothing: a reject needs their identifier.
    public static func reply(to frame: L2CAPBasicFrame) -> L2CAPBasicFrame? {
        switch frame.channel {
        case L2CAPBasicFrame.signalingChannel: signalingReply(frame.payload)
        case L2CAPBasicFrame.securityManagerChannel: securityManagerReply(frame.payload)
        default: nil
        }
    }

    /// Code (1) · Identifier (1) · Length (2) · data.
    private static func signalingReply(_ payload: [UInt8]) -> L2CAPBasicFrame? {
        guard payload.count >= 4, requests.contains(payload[0]) else { return nil }
        let (code, identifier) = (payload[0], payload[1])
        let answer: [UInt8] =
            code == connectionParameterUpdateRequest
            ? [connectionParameterUpdateResponse, identifier, 0x02, 0x00, 0x01, 0x00]
            : [commandReject, identifier, 0x02, 0x00, 0x00, 0x00]
        return L2CAPBasicFrame(channel: L2CAPBasicFrame.signalingChannel, payload: answer)
    }

    private static func securityManagerReply(_ payload: [UInt8]) -> L2CAPBasicFrame? {
        guard let code = payload.first, code != pairingFailed else { return nil }
        return L2CAPBasicFrame(
            channel: L2CAPBasicFrame.securityManagerChannel, payload: [pairingFailed, pairingNotSupported])
    }
}
