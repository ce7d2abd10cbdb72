/// Read By Group Type Response (0x11): a length byte, then entries of exactly that length:
/// the group's first handle, its last handle, and the group declaration's value (for a service:
/// its UUID).
public struct ATTReadByGroupTypeResponse: ATTPDU {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    /// One group (for a service: its handle range and UUID bytes).
    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    /// Non-empty, all values the same length (the caller's duty when encoding).
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 2)
        entries = try reader.lengthPrefixedHandleEntries(minimumLength: 4).map { entry in
            let rest = entry.rest
            return Entry(
                handle: entry.handle,
                endGroupHandle: UInt16(rest[rest.startIndex]) | UInt16(rest[rest.startIndex + 1]) << 8,
                value: Array(rest.dropFirst(2)))
        }
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue, UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0))]
        for entry in entries {
            bytes.appendLittleEndian(entry.handle)
            bytes.appendLittleEndian(entry.endGroupHandle)
            bytes += entry.value
        }
        return bytes
    }
}
