/// Handle Value Notification (0x1B): the value of the attribute at `handle`; the server sends it unasked; the client never answers.
public struct ATTHandleValueNotification: ATTPDU {
    public static let opcode = ATTOpcode.handleValueNotification
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
