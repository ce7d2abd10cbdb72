/// An L2CAP basic information frame (B-frame, Core Specification Vol 3 Part A §3.1):
/// Length (2) · Channel ID (2) · payload, little-endian. On LE the fixed channels carry ATT (4),
/// LE signaling (5) and the Security Manager (6), one PDU per frame.
public struct L2CAPBasicFrame: Hashable, Sendable {
    public static let attChannel: UInt16 = 0x0004
    public static let signalingChannel: UInt16 = 0x0005
    public static let securityManagerChannel: UInt16 = 0x0006
    public static let headerLength = 4

    public var channel: UInt16
    public var payload: [UInt8]

    public init(channel: UInt16, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// Reads a whole frame; its length field must match the payload exactly.
    public init(bytes: some Collection<UInt8>) throws(HCIPacketError) {
        var reader = HCIByteReader(bytes, packet: "L2CAP basic frame")
        let length = Int(try reader.uint16("Length"))
        channel = try reader.uint16("Channel ID")
        guard reader.remaining == length else {
            throw .lengthMismatch(packet: "L2CAP basic frame", declared: length, actual: reader.remaining)
        }
        payload = reader.rest()
    }

    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(UInt16(clamping: payload.count))
        bytes.appendLittleEndian(channel)
        return bytes + payload
    }

    /// The frame cut into ACL packets of at most `maximumDataLength` bytes (the controller's LE
    /// ACL buffer size): the first marked first-non-flushable, the rest continuing (Vol 3 Part A
    /// §7.2.1).
    public func aclPackets(handle: UInt16, maximumDataLength: Int) -> [HCIACLPacket] {
        let bytes = encoded
        let size = max(1, maximumDataLength)
        return stride(from: 0, to: bytes.count, by: size).map { offset in
            HCIACLPacket(
                handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuing,
                data: Array(bytes[offset..<min(offset + size, bytes.count)]))
        }
    }
}
