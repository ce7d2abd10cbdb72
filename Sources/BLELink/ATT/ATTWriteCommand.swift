/// Write Command (0x52), GATT's "write without response": no answer, not subject to the
/// one-request-at-a-time rule. Tuya sends its 20-byte packets this way (TUYA.md §1.1).
public struct ATTWriteCommand: ATTPDU {
    public static let opcode = ATTOpcode.writeCommand
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
