/// Error Response (0x01): the server could not perform `request`, at `handle` (0 when no handle
/// applies), for `error`. Always 5 bytes (Core spec Vol 3 Part F §3.4.1.1).
public struct ATTErrorResponse: ATTPDU {
    public static let opcode = ATTOpcode.errorResponse
    public var request: ATTOpcode
    public var handle: UInt16
    public var error: ATTErrorCode

    public init(request: ATTOpcode, handle: UInt16, error: ATTErrorCode) {
        self.request = request
        self.handle = handle
        self.error = error
    }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, exactLength: 5)
        request = ATTOpcode(try reader.uint8())
        handle = try reader.uint16()
        error = ATTErrorCode(try reader.uint8())
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue, request.rawValue]
        bytes.appendLittleEndian(handle)
        bytes.append(error.rawValue)
        return bytes
    }
}
