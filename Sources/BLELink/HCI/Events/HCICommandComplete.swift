/// Command Complete (Vol 4 Part E §7.7.14): Num_HCI_Command_Packets (1) · Command_Opcode (2) ·
/// Return_Parameters. Every command this host sends that is not answered by Command Status ends
/// with one; its first return parameter is the status.
public struct HCICommandComplete: Hashable, Sendable {
    /// How many commands the controller accepts now (0: wait for a later event).
    public var numberOfCommandPackets: UInt8
    /// 0x0000 is the No Operation opcode a controller uses only to hand out command credits.
    public var opcode: HCIOpcode
    /// The first return parameter, nil when there are none (No Operation).
    public var status: HCIErrorCode?
    /// The return parameters after the status.
    public var returnParameters: [UInt8]

    public init(numberOfCommandPackets: UInt8, opcode: HCIOpcode, status: HCIErrorCode?, returnParameters: [UInt8]) {
        self.numberOfCommandPackets = numberOfCommandPackets
        self.opcode = opcode
        self.status = status
        self.returnParameters = returnParameters
    }

    public init(parameters: [UInt8]) throws(HCIPacketError) {
        var reader = HCIByteReader(parameters, packet: "Command Complete event")
        numberOfCommandPackets = try reader.uint8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try reader.uint16("Command_Opcode"))
        status = reader.remaining > 0 ? HCIErrorCode(rawValue: try reader.uint8("Status")) : nil
        returnParameters = reader.rest()
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [numberOfCommandPackets]
        bytes.appendLittleEndian(opcode.rawValue)
        if let status { bytes.append(status.rawValue) }
        return bytes + returnParameters
    }
}
