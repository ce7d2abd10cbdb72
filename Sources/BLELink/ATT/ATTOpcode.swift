/// The first byte of every ATT PDU (Core spec Vol 3 Part F §3.3): bits 0–5 the method, bit 6
/// the command flag (no response is ever sent), bit 7 the authentication-signature flag.
///
/// A struct rather than an enum so an opcode this code does not know (garbage from a device)
/// still has a value that errors and counters can name.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    private static let names: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response",
        0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
        0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request", 0x0B: "Read Response",
        0x0C: "Read Blob Request", 0x0D: "Read Blob Response", 0x0E: "Read Multiple Request",
        0x0F: "Read Multiple Response", 0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
        0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request",
        0x17: "Prepare Write Response", 0x18: "Execute Write Request", 0x19: "Execute Write Response",
        0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication", 0x1E: "Handle Value Confirmation",
        0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
        0x23: "Multiple Handle Value Notification", 0x52: "Write Command", 0xD2: "Signed Write Command",
    ]

    /// The requests the spec defines; a peer that receives one it does not support answers it
    /// with an Error Response "Request Not Supported".
    private static let requests: Set<UInt8> = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20]
    private static let responses: Set<UInt8> = [
        0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21,
    ]

    /// Bit 6: the sender expects no answer, and a receiver that does not understand it drops it
    /// silently (Core spec Vol 3 Part F §3.3.1).
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// One of the spec's request opcodes.
    public var isRequest: Bool { Self.requests.contains(rawValue) }

    /// One of the spec's response opcodes, Error Response included.
    public var isResponse: Bool { Self.responses.contains(rawValue) }

    /// The response that answers this request: every ATT request's response is the next opcode.
    public var responseOpcode: ATTOpcode? { isRequest ? ATTOpcode(rawValue + 1) : nil }

    /// The spec's name and the hex value, `Write Request (0x12)`.
    public var description: String {
        "\(Self.names[rawValue] ?? "unknown opcode") (\(ATTHex.byte(rawValue)))"
    }
}

/// Hex formatting shared by the ATT descriptions.
enum ATTHex {
    static func byte(_ value: UInt8) -> String {
        "0x" + (value < 0x10 ? "0" : "") + String(value, radix: 16)
    }

    static func handle(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
