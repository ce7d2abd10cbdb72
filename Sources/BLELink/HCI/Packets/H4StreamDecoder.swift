/// Cuts an H4 byte stream into packets, whatever the chunks it arrives in (a TCP segment may
/// hold half a packet or three of them).
///
/// Hostile input cannot grow memory: a declared length above the limit for its packet type is
/// refused before any of its bytes are kept. H4 has no resynchronisation marker, so after the
/// first error the stream is unusable: the decoder keeps failing with that error.
public struct H4StreamDecoder: Sendable {
    /// The longest payload accepted per packet type. Events are at most 255 bytes by their
    /// format; ACL data is bounded here (controllers send at most their LE buffer size, 27–251
    /// bytes, though an emulator may send a whole L2CAP frame at once).
    public struct Limits: Hashable, Sendable {
        public var maximumACLLength: Int
        public var maximumISOLength: Int

        public init(maximumACLLength: Int = 2048, maximumISOLength: Int = 2048) {
            self.maximumACLLength = maximumACLLength
            self.maximumISOLength = maximumISOLength
        }
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    private var start = 0
    public private(set) var failure: HCIPacketError?

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes held while a packet is incomplete.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends `bytes` and returns every packet now complete, in order.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(HCIPacketError) -> [H4Packet] {
        if let failure { throw failure }
        buffer.append(contentsOf: bytes)
        var packets: [H4Packet] = []
        do throws(HCIPacketError) {
            while let packet = try nextPacket() { packets.append(packet) }
        } catch {
            failure = error
            buffer = []
            start = 0
            throw error
        }
        if start > 4096 || start == buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return packets
    }

    private mutating func nextPacket() throws(HCIPacketError) -> H4Packet? {
        guard start < buffer.count else { return nil }
        guard let type = H4PacketType(rawValue: buffer[start]) else { throw .unknownPacketType(buffer[start]) }
        let headerStart = start + 1
        guard buffer.count - headerStart >= type.headerLength else { return nil }
        let length = type.payloadLength(header: buffer[headerStart..<(headerStart + type.headerLength)])
        let maximum = maximumLength(type)
        guard length <= maximum else { throw .oversized(packet: type.description, length: length, maximum: maximum) }
        let end = headerStart + type.headerLength + length
        guard buffer.count >= end else { return nil }
        defer { start = end }
        return H4Packet(type: type, body: Array(buffer[headerStart..<end]))
    }

    private func maximumLength(_ type: H4PacketType) -> Int {
        switch type {
        case .command, .sco, .event: 255
        case .acl: limits.maximumACLLength
        case .iso: limits.maximumISOLength
        }
    }
}
