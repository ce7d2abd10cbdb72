/// Read By Type Response (0x09): a length byte, then handle–value pairs of exactly that length
/// (handle included). A server puts only same-length values in one response.
public struct ATTReadByTypeResponse: ATTPDU {
    public static let opcode = ATTOpcode.readByTypeResponse

    /// One attribute: its handle and (possibly truncated) value.
    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// Non-empty, all values the same length (the caller's duty when encoding).
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 2)
        entries = try reader.lengthPrefixedHandleEntries(minimumLength: 2).map { entry in
            Entry(handle: entry.handle, value: Array(entry.rest))
        }
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue, UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0))]
        for entry in entries {
            bytes.appendLittleEndian(entry.handle)
            bytes += entry.value
        }
        return bytes
    }
}
