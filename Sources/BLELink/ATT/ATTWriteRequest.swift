/// Write Request (0x12): write `value` to `handle`; the server answers with a Write Response.
/// Used for the CCCD.
public struct ATTWriteRequest: ATTRequestPDU {
    public typealias Response = ATTWriteResponse
    public static let opcode = ATTOpcode.writeRequest
    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 3)
        handle = try reader.uint16()
        value = reader.rest()
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(handle)
        return bytes + value
    }
}
