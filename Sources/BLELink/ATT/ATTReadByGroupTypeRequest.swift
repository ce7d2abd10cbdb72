/// Read By Group Type Request (0x10): the groups of `groupType` (0x2800 primary services) in
/// `startHandle...endHandle`. 7 or 21 bytes.
public struct ATTReadByGroupTypeRequest: ATTRequestPDU {
    public typealias Response = ATTReadByGroupTypeResponse
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    public var startHandle: UInt16
    public var endHandle: UInt16
    public var groupType: BluetoothUUID

    public init(startHandle: UInt16, endHandle: UInt16, groupType: BluetoothUUID) {
        self.startHandle = startHandle
        self.endHandle = endHandle
        self.groupType = groupType
    }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 7)
        startHandle = try reader.uint16()
        endHandle = try reader.uint16()
        groupType = try reader.uuid()
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(startHandle)
        bytes.appendLittleEndian(endHandle)
        return bytes + groupType.littleEndianField
    }
}
