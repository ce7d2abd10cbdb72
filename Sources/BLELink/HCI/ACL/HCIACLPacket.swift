/// An HCI ACL data packet after its H4 indicator (Core Specification Vol 4 Part E §5.4.2):
/// Handle (12 bits) · Packet_Boundary_Flag (2) · Broadcast_Flag (2), little-endian ·
/// Data_Total_Length (2) · data. It carries one fragment of an L2CAP frame.
public struct HCIACLPacket: Hashable, Sendable {
    /// Where the fragment sits in its L2CAP frame.
    public enum Boundary: UInt8, Hashable, Sendable {
        /// Host to controller: the first fragment (LE links are never flushed).
        case firstNonFlushable = 0b00
        case continuing = 0b01
        /// Controller to host: the first fragment.
        case firstFlushable = 0b10
        /// A whole L2CAP frame in one packet (not used on LE; read as a first fragment).
        case complete = 0b11

        public var isFirst: Bool { self != .continuing }
    }

    public var handle: UInt16
    public var boundary: Boundary
    public var broadcast: UInt8
    public var data: [UInt8]

    public init(handle: UInt16, boundary: Boundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    /// Reads the body of an H4 ACL packet; the declared length must match exactly.
    public init(body: some Collection<UInt8>) throws(HCIPacketError) {
        var reader = HCIByteReader(body, packet: "HCI ACL data packet")
        let header = try reader.uint16("Handle and flags")
        let length = Int(try reader.uint16("Data_Total_Length"))
        guard reader.remaining == length else {
            throw .lengthMismatch(packet: "HCI ACL data packet", declared: length, actual: reader.remaining)
        }
        handle = header & 0x0FFF
        boundary = Boundary(rawValue: UInt8((header >> 12) & 0x03))!
        broadcast = UInt8(header >> 14)
        data = reader.rest()
    }

    public var body: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(handle | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14)
        bytes.appendLittleEndian(UInt16(clamping: data.count))
        return bytes + data
    }

    public var h4Packet: H4Packet { H4Packet(type: .acl, body: body) }
}
