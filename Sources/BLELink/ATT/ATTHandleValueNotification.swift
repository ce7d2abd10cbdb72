/// Handle Value Notification (0x1B): the value of the attribute at `handle`; the server sends it unasked; the client never answers.
public struct ATTHandleValueNotification: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.handleValueNotification
    public var handle: UInt16
    public var value: [UInt8]

    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
