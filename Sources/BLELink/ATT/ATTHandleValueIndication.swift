/// Handle Value Indication (0x1D): the value of the attribute at `handle`; the client must answer with a Handle Value Confirmation before the server sends another.
public struct ATTHandleValueIndication: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.handleValueIndication
    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
