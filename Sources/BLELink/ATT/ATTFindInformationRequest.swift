/// Find Information Request (0x04): the handles and types of the attributes in
/// `startHandle...endHandle`, used to discover descriptors. Always 5 bytes.
public struct ATTFindInformationRequest: ATTRequestPDU {
    public typealias Response = ATTFindInformationResponse
    public static let opcode = ATTOpcode.findInformationRequest
    public var startHandle: UInt16
    public var endHandle: UInt16

    public init(startHandle: UInt16, endHandle: UInt16) {
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, exactLength: 5)
        startHandle = try reader.uint16()
        endHandle = try reader.uint16()
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(startHandle)
        bytes.appendLittleEndian(endHandle)
        return bytes
    }
}
