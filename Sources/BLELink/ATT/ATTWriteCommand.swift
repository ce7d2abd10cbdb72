/// Write Command (0x52), GATT's "write without response": no answer, not subject to the
/// one-request-at-a-time rule. Tuya sends its 20-byte packets this way (TUYA.md §1.1).
public struct ATTWriteCommand: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.writeCommand
    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
