/// Exchange MTU Response (0x03): the server's receive MTU. Always 3 bytes. Both sides then use
/// the smaller of the two MTUs, and never less than the LE default of 23.
public struct ATTExchangeMTUResponse: ATTPDU {
    public static let opcode = ATTOpcode.exchangeMTUResponse
    public var serverMTU: UInt16

    public init(serverMTU: UInt16) { self.serverMTU = serverMTU }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, exactLength: 3)
        serverMTU = try reader.uint16()
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(serverMTU)
        return bytes
    }
}
