/// Why bytes from a controller (or written by a test) are not a valid HCI packet. Each case
/// names the packet and the field, so a log line says which side is broken.
public enum HCIPacketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The H4 packet indicator is not one of command, ACL, SCO, event or ISO: the byte stream is
    /// out of step (a wrong baud rate, a controller that is not speaking H4) and cannot recover.
    case unknownPacketType(UInt8)
    /// A field needs more bytes than the packet has.
    case truncated(packet: String, field: String, needed: Int, available: Int)
    /// A length field claims more than this host accepts.
    case oversized(packet: String, length: Int, maximum: Int)
    /// A length field disagrees with the bytes that follow it.
    case lengthMismatch(packet: String, declared: Int, actual: Int)
    /// A value the specification does not allow here.
    case invalidField(packet: String, field: String, value: Int)
    /// The bytes are a valid packet of another kind than the one being decoded.
    case unexpectedPacket(expected: String, received: String)
    /// An LE advertising report inside an LE Meta event is malformed.
    case advertisingReport(HCIEventError)

    public var description: String {
        switch self {
        case .unknownPacketType(let type):
            "unknown H4 packet type 0x\(hex(type)): the byte stream is out of step (wrong baud rate, or not an H4 "
                + "controller)"
        case .truncated(let packet, let field, let needed, let available):
            "truncated \(packet): \(field) needs \(needed) bytes, \(available) left"
        case .oversized(let packet, let length, let maximum):
            "\(packet) of \(length) bytes; at most \(maximum) are accepted"
        case .lengthMismatch(let packet, let declared, let actual):
            "\(packet) declares \(declared) bytes but \(actual) follow"
        case .invalidField(let packet, let field, let value):
            "invalid \(field) \(value) (0x\(String(value, radix: 16))) in \(packet)"
        case .unexpectedPacket(let expected, let received):
            "expected \(expected), received \(received)"
        case .advertisingReport(let error):
            error.description
        }
    }
}

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

func hex16(_ value: UInt16) -> String {
    hex(UInt8(value >> 8)) + hex(UInt8(value & 0xFF))
}
