/// Disconnect (Vol 4 Part E §7.1.6): Connection_Handle (2) · Reason (1). Answered by a Command
/// Status, then a Disconnection Complete.
public struct HCIDisconnectCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.disconnect

    public var handle: UInt16
    /// What the peer is told: usually Remote User Terminated Connection (0x13).
    public var reason: HCIErrorCode

    public init(handle: UInt16, reason: HCIErrorCode = .remoteUserTerminatedConnection) {
        self.handle = handle
        self.reason = reason
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(handle & 0x0FFF)
        return bytes + [reason.rawValue]
    }
}
