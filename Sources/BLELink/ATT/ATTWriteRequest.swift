/// Write Request (0x12): write `value` to `handle`; the server answers with a Write Response.
/// Used for the CCCD.
public struct ATTWriteRequest: ATTRequestPDU, ATTHandleValuePDU {
    public typealias Response = ATTWriteResponse
    public static let opcode = ATTOpcode.writeRequest
    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
