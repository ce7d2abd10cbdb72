/// Bounds-checked little-endian reading of HCI fields: every read names the field, and a short
/// packet throws `HCIPacketError.truncated` instead of trapping.
struct HCIByteReader {
    let bytes: ArraySlice<UInt8>
    let packet: String
    private(set) var offset: Int

    init(_ bytes: some Collection<UInt8>, packet: String) {
        self.bytes = ArraySlice(bytes)
        self.packet = packet
        offset = self.bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - offset }

    mutating func uint8(_ field: String) throws(HCIPacketError) -> UInt8 {
        try take(1, field)[offset - 1]
    }

    mutating func uint16(_ field: String) throws(HCIPacketError) -> UInt16 {
        let slice = try take(2, field)
        return UInt16(slice[slice.startIndex]) | UInt16(slice[slice.startIndex + 1]) << 8
    }

    mutating func bytes(_ count: Int, _ field: String) throws(HCIPacketError) -> [UInt8] {
        Array(try take(count, field))
    }

    /// Everything left.
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.endIndex }
        return Array(bytes[offset...])
    }

    /// Fails unless every byte was read.
    func expectEnd() throws(HCIPacketError) {
        guard remaining == 0 else {
            throw .lengthMismatch(packet: packet, declared: offset - bytes.startIndex, actual: bytes.count)
        }
    }

    private mutating func take(_ count: Int, _ field: String) throws(HCIPacketError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .truncated(packet: packet, field: field, needed: count, available: remaining)
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}
