/// An HCI command the host sends: its opcode and its parameters, encoded as Core Specification
/// Vol 4 Part E §7 lays them out (little-endian). One type per command, like the ATT PDUs.
public protocol HCICommand: Sendable {
    static var opcode: HCIOpcode { get }
    /// The parameter bytes after the 3-byte command header.
    var parameters: [UInt8] { get }
}

/// A command answered by a Command Complete event whose return parameters (after the status)
/// this host reads.
public protocol HCICommandWithReturn: HCICommand {
    associatedtype ReturnParameters: Sendable
    /// Reads the return parameters after the status byte.
    static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError) -> ReturnParameters
}

extension HCICommand {
    /// The command packet after the H4 indicator: opcode, parameter length, parameters.
    public var body: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(Self.opcode.rawValue)
        bytes.append(UInt8(parameters.count))
        return bytes + parameters
    }

    /// The whole H4 packet.
    public var h4Packet: H4Packet { H4Packet(type: .command, body: body) }
}
