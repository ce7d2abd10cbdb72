/// Write Response (0x13): the opcode alone.
public struct ATTWriteResponse: ATTPDU {
    public static let opcode = ATTOpcode.writeResponse

    public init() {}

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        _ = try ATTReader(bytes, expecting: Self.opcode, exactLength: 1)
    }

    public func encode() -> [UInt8] { [Self.opcode.rawValue] }
}
