/// Why bytes are not the ATT PDU they claim to be. Parsing never traps: a device that sends
/// short, overlong or inconsistent PDUs gets one of these, naming the PDU and what is wrong.
public enum ATTDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// The first byte is not this PDU's opcode.
    case wrongOpcode(expected: ATTOpcode, found: UInt8)
    /// Fewer bytes than the PDU's fixed fields need.
    case truncated(ATTOpcode, needed: Int, got: Int)
    /// A fixed-size PDU with a different length (trailing bytes included).
    case wrongLength(ATTOpcode, expected: Int, got: Int)
    /// A UUID field that is neither 2 nor 16 bytes.
    case invalidUUIDLength(ATTOpcode, Int)
    /// A Find Information Response format other than 1 (16-bit UUIDs) or 2 (128-bit).
    case invalidFormat(ATTOpcode, UInt8)
    /// A list entry length below the entry's fixed part (handles).
    case invalidEntryLength(ATTOpcode, length: Int, minimum: Int)
    /// A list whose byte count is not a multiple of its entry length, or that is empty.
    case invalidListLength(ATTOpcode, listLength: Int, entryLength: Int)

    public var description: String {
        switch self {
        case .empty:
            "an empty ATT PDU"
        case .wrongOpcode(let expected, let found):
            "expected \(expected), got opcode \(ATTHex.byte(found))"
        case .truncated(let opcode, let needed, let got):
            "\(opcode) is \(got) bytes, needs at least \(needed)"
        case .wrongLength(let opcode, let expected, let got):
            "\(opcode) is \(got) bytes, must be \(expected)"
        case .invalidUUIDLength(let opcode, let length):
            "\(opcode) carries a \(length)-byte UUID; UUIDs are 2 or 16 bytes"
        case .invalidFormat(let opcode, let format):
            "\(opcode) has format \(ATTHex.byte(format)); only 0x01 (16-bit) and 0x02 (128-bit) exist"
        case .invalidEntryLength(let opcode, let length, let minimum):
            "\(opcode) declares \(length)-byte entries; each needs at least \(minimum)"
        case .invalidListLength(let opcode, let listLength, let entryLength):
            "\(opcode) has a \(listLength)-byte list that is not a non-empty whole number of \(entryLength)-byte entries"
        }
    }
}
