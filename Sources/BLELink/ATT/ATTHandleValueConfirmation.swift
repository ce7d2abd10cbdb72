/// Handle Value Confirmation (0x1E): the opcode alone, the client's answer to an indication.
public struct ATTHandleValueConfirmation: ATTPDU {
    public static let opcode = ATTOpcode.handleValueConfirmation

    public init() {}

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        _ = try ATTReader(bytes, expecting: Self.opcode, exactLength: 1)
    }

    public func encode() -> [UInt8] { [Self.opcode.rawValue] }
}
