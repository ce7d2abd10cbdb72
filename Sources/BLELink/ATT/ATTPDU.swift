/// One ATT PDU: an opcode, then parameters in little-endian order (Core spec Vol 3 Part F §3.3).
/// Each conforming type is pure: `init(bytes:)` parses a whole PDU, opcode included, and
/// `encode()` writes one.
public protocol ATTPDU: Sendable, Hashable {
    /// The opcode this PDU starts with.
    static var opcode: ATTOpcode { get }
    /// Parses a whole PDU, opcode included. Throws instead of trapping on any input.
    init(bytes: [UInt8]) throws(ATTDecodingError)
    /// The PDU's bytes, opcode included.
    func encode() -> [UInt8]
}

/// A PDU that a server answers with `Response` (or with an Error Response).
public protocol ATTRequestPDU: ATTPDU {
    associatedtype Response: ATTPDU
}

/// The four PDUs laid out as opcode, attribute handle, value (Write Request, Write Command,
/// Handle Value Notification and Indication): one parser and encoder for all of them.
public protocol ATTHandleValuePDU: ATTPDU {
    var handle: UInt16 { get }
    var value: [UInt8] { get }
    init(handle: UInt16, value: [UInt8])
}

extension ATTHandleValuePDU {
    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 3)
        let handle = try reader.uint16()
        self.init(handle: handle, value: reader.rest())
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue]
        bytes.appendLittleEndian(handle)
        return bytes + value
    }
}

/// A cursor over a PDU that reads little-endian fields and throws `truncated` when bytes run out.
struct ATTReader {
    let bytes: [UInt8]
    let opcode: ATTOpcode
    private(set) var offset = 1

    /// Checks the opcode byte and positions after it.
    init(_ bytes: [UInt8], expecting opcode: ATTOpcode, minimumLength: Int = 1) throws(ATTDecodingError) {
        guard let first = bytes.first else { throw .empty }
        guard first == opcode.rawValue else { throw .wrongOpcode(expected: opcode, found: first) }
        guard bytes.count >= minimumLength else {
            throw .truncated(opcode, needed: minimumLength, got: bytes.count)
        }
        self.bytes = bytes
        self.opcode = opcode
    }

    /// Like `init`, for PDUs whose length is fixed.
    init(_ bytes: [UInt8], expecting opcode: ATTOpcode, exactLength: Int) throws(ATTDecodingError) {
        try self.init(bytes, expecting: opcode)
        guard bytes.count == exactLength else {
            throw bytes.count < exactLength
                ? .truncated(opcode, needed: exactLength, got: bytes.count)
                : .wrongLength(opcode, expected: exactLength, got: bytes.count)
        }
    }

    var remaining: Int { bytes.count - offset }

    mutating func uint8() throws(ATTDecodingError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(opcode, needed: offset + 1, got: bytes.count) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() throws(ATTDecodingError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(opcode, needed: offset + 2, got: bytes.count) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// All bytes after the cursor.
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// The rest as a non-empty list of `length`-byte entries, each a little-endian handle and the
    /// bytes after it (the list responses: Find Information, Read By Type, Read By Group Type).
    mutating func handleEntries(
        length: Int
    ) throws(ATTDecodingError) -> [(handle: UInt16, rest: ArraySlice<UInt8>)] {
        let list = rest()
        guard !list.isEmpty, list.count % length == 0 else {
            throw .invalidListLength(opcode, listLength: list.count, entryLength: length)
        }
        return stride(from: 0, to: list.count, by: length).map { start in
            (UInt16(list[start]) | UInt16(list[start + 1]) << 8, list[start + 2..<start + length])
        }
    }

    /// A length byte of at least `minimumLength`, then `handleEntries` of exactly that length.
    mutating func lengthPrefixedHandleEntries(
        minimumLength: Int
    ) throws(ATTDecodingError) -> [(handle: UInt16, rest: ArraySlice<UInt8>)] {
        let length = Int(try uint8())
        guard length >= minimumLength else {
            throw .invalidEntryLength(opcode, length: length, minimum: minimumLength)
        }
        return try handleEntries(length: length)
    }

    /// The remaining bytes as a UUID; they must be exactly 2 or 16.
    mutating func uuid() throws(ATTDecodingError) -> BluetoothUUID {
        let field = rest()
        guard let uuid = BluetoothUUID(littleEndian: field) else { throw .invalidUUIDLength(opcode, field.count) }
        return uuid
    }
}

/// Little-endian writing for `encode()`.
extension Array where Element == UInt8 {
    mutating func appendLittleEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }
}
