/// Command Status (Vol 4 Part E §7.7.15): Status (1) · Num_HCI_Command_Packets (1) ·
/// Command_Opcode (2). Answers the commands whose result comes later in another event (LE
/// Create Connection, Disconnect): status 0 means "started".
public struct HCICommandStatus: Hashable, Sendable {
    public var status: HCIErrorCode
    public var numberOfCommandPackets: UInt8
    public var opcode: HCIOpcode

    public init(status: HCIErrorCode, numberOfCommandPackets: UInt8, opcode: HCIOpcode) {
        self.status = status
        self.numberOfCommandPackets = numberOfCommandPackets
        self.opcode = opcode
    }

    public init(parameters: [UInt8]) throws(HCIPacketError) {
        var reader = HCIByteReader(parameters, packet: "Command Status event")
        status = HCIErrorCode(rawValue: try reader.uint8("Status"))
        numberOfCommandPackets = try reader.uint8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try reader.uint16("Command_Opcode"))
        try reader.expectEnd()
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [status.rawValue, numberOfCommandPackets]
        bytes.appendLittleEndian(opcode.rawValue)
        return bytes
    }
}
