/// The 15 bytes some payloads start with: `"3.x"` ‖ CRC-32 (4) ‖ sequence (4) ‖ source id (4)
/// (protocol/TUYA.md §2.3; TT `PROTOCOL.md`, "source header").
///
/// tinytuya sends the all-zero form. The fields mean: a CRC that is zero for LAN traffic,
/// a per-source sequence the device uses to drop repeats, and a source id that is 1 for
/// the device itself and a random non-zero value a client keeps. Source id 0 turns the
/// device's sequence check off.
public struct LANVersionHeader: Sendable, Hashable {
    public static let size = 15
    /// Source id of frames a device sends itself.
    public static let deviceSource: UInt32 = 1

    public var version: LANProtocolVersion
    public var crc: UInt32
    public var sequence: UInt32
    public var source: UInt32

    public init(version: LANProtocolVersion, crc: UInt32 = 0, sequence: UInt32 = 0, source: UInt32 = 0) {
        self.version = version
        self.crc = crc
        self.sequence = sequence
        self.source = source
    }

    /// Reads a header when `bytes` start with `version`'s three ASCII bytes and hold 15.
    init?(_ bytes: ArraySlice<UInt8>, version: LANProtocolVersion) {
        let base = bytes.startIndex
        guard bytes.count >= Self.size, bytes[base] == 0x33, bytes[base + 1] == 0x2E,
            bytes[base + 2] == Self.minorDigit(version)
        else { return nil }
        self.init(
            version: version, crc: BigEndian.read(bytes, at: base + 3), sequence: BigEndian.read(bytes, at: base + 7),
            source: BigEndian.read(bytes, at: base + 11))
    }

    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        append(to: &bytes)
        return bytes
    }

    /// Writes the 15 bytes at the end of `bytes` (a frame being built).
    func append(to bytes: inout [UInt8]) {
        bytes.append(0x33)
        bytes.append(0x2E)
        bytes.append(Self.minorDigit(version))
        BigEndian.append(crc, to: &bytes)
        BigEndian.append(sequence, to: &bytes)
        BigEndian.append(source, to: &bytes)
    }

    /// The last of the version's three ASCII bytes ("3.x"), without building a string.
    static func minorDigit(_ version: LANProtocolVersion) -> UInt8 {
        switch version {
        case .v3_1: 0x31
        case .v3_2: 0x32
        case .v3_3: 0x33
        case .v3_4: 0x34
        case .v3_5: 0x35
        }
    }
}
