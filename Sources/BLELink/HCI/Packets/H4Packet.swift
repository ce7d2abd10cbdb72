/// One packet on an H4 byte stream: the indicator and the bytes after it (header and payload),
/// kept whole so that each kind's own decoder (`HCIEventPacket`, `HCIACLPacket`) reads them.
public struct H4Packet: Hashable, Sendable, CustomStringConvertible {
    public var type: H4PacketType
    /// The packet after its indicator byte.
    public var body: [UInt8]

    public init(type: H4PacketType, body: [UInt8]) {
        self.type = type
        self.body = body
    }

    /// The indicator followed by the body, as written to the stream.
    public var encoded: [UInt8] { [type.rawValue] + body }

    public var description: String { "\(type) (\(body.count) bytes)" }
}
