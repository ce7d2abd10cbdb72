/// Find Information Response (0x05): a format byte (1: 16-bit UUIDs, 2: 128-bit), then
/// handle–type pairs that all use that format.
public struct ATTFindInformationResponse: ATTPDU {
    public static let opcode = ATTOpcode.findInformationResponse

    /// One attribute: its handle and type.
    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var type: BluetoothUUID

        public init(handle: UInt16, type: BluetoothUUID) {
            self.handle = handle
            self.type = type
        }
    }

    /// Whether the list carries 128-bit UUIDs (format 2) or 16-bit ones (format 1).
    public var uses128BitUUIDs: Bool
    public var entries: [Entry]

    /// `entries` must all have a 16-bit form unless `uses128BitUUIDs`; `encode()` writes each
    /// type in the width the format says.
    public init(uses128BitUUIDs: Bool, entries: [Entry]) {
        self.uses128BitUUIDs = uses128BitUUIDs
        self.entries = entries
    }

    public init(bytes: [UInt8]) throws(ATTDecodingError) {
        var reader = try ATTReader(bytes, expecting: Self.opcode, minimumLength: 2)
        let format = try reader.uint8()
        let uuidLength: Int
        switch format {
        case 1: uuidLength = 2
        case 2: uuidLength = 16
        default: throw .invalidFormat(Self.opcode, format)
        }
        let entryLength = 2 + uuidLength
        uses128BitUUIDs = format == 2
        // The rest is 2 or 16 bytes by construction, so the UUID always parses.
        entries = try reader.handleEntries(length: entryLength).map { entry in
            Entry(handle: entry.handle, type: BluetoothUUID(littleEndian: Array(entry.rest))!)
        }
    }

    public func encode() -> [UInt8] {
        var bytes = [Self.opcode.rawValue, uses128BitUUIDs ? 2 : 1]
        for entry in entries {
            bytes.appendLittleEndian(entry.handle)
            bytes += uses128BitUUIDs ? entry.type.bytes.reversed() : entry.type.littleEndianField
        }
        return bytes
    }
}
