/// Exchange MTU Request (0x02): the client's receive MTU. Always 3 bytes.
public struct ATTExchangeMTURequest: ATTRequestPDU {
    public typealias Response = ATTExchangeMTUResponse
    public static let opcode = ATTOpcode.exchangeMTURequest
    public var clientMTU: UInt16

    public init(clientMTU: UInt16) { self.clientMTU = clientMTU }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, exactLength: 3)
        clientMTU = try reader.uint16()
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(clientMTU)
        return bytes
    }
}
