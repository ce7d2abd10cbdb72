/// Read By Type Request (0x08): the values of the attributes of `type` in
/// `startHandle...endHandle`; with type 0x2803 it discovers characteristics. 7 or 21 bytes.
public struct ATTReadByTypeRequest: ATTRequestPDU {
    public typealias Response = ATTReadByTypeResponse
    public static let opcode = ATTOpcode.readByTypeRequest
    public var startHandle: UInt16
    public var endHandle: UInt16
    public var type: BluetoothUUID

    public init(startHandle: UInt16, endHandle: UInt16, type: BluetoothUUID) {
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.type = type
    }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 7)
        startHandle = try reader.uint16()
        endHandle = try reader.uint16()
        type = try reader.uuid()
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(startHandle)
        bytes.appendLittleEndian(endHandle)
        return bytes + type.littleEndianField
    }
}
