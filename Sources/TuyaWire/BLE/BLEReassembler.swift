/// Joins GATT notifications back into one encrypted frame (protocol/TUYA.md §1.3).
///
/// Packet numbers must be consecutive; a packet 0 always starts a new frame (the
/// device gave up on the previous one). The total length is checked against
/// `maxFrameLength` before any buffer is reserved, and data beyond the announced
/// total is an error, so a hostile peer cannot make the gateway allocate or grow
/// without bound. Any error drops the partial frame.
public struct BLEReassembler: Sendable {
    /// Real frames are far smaller (a device-info reply is under 150 bytes).
    public static let defaultMaxFrameLength = 4096

    public let maxFrameLength: Int
    /// The version nibble of the frame most recently started (protocol/TUYA.md §1.3).
    public private(set) var protocolVersion: UInt8?
    /// The sequence nibble of the frame most recently started.
    public private(set) var frameSequence: UInt8?

    private var buffer: [UInt8] = []
    private var expectedLength: Int?
    private var nextPacket = 0

    public init(maxFrameLength: Int = BLEReassembler.defaultMaxFrameLength) {
        self.maxFrameLength = maxFrameLength
    }

    /// True when no frame is partly received.
    public var isIdle: Bool { expectedLength == nil }

    public mutating func reset() {
        buffer = []
        expectedLength = nil
        nextPacket = 0
    }

    /// Takes one notification; returns the whole frame once its last packet arrived.
    public mutating func receive(_ packet: [UInt8]) throws(WireError) -> [UInt8]? {
        do throws(WireError) {
            return try accept(packet)
        } catch {
            reset()
            throw error
        }
    }

    private mutating func accept(_ packet: [UInt8]) throws(WireError) -> [UInt8]? {
        let number = try Varint(bytes: packet)
        var offset = number.byteCount
        if number.value == 0 {
            let total = try Varint(bytes: packet[offset...])
            offset += total.byteCount
            guard offset < packet.count else {
                throw .truncated(what: "BLE first packet", needed: offset + 1, available: packet.count)
            }
            guard total.value > 0, total.value <= maxFrameLength else {
                throw .lengthOutOfRange(field: "BLE frame total length", value: total.value, limit: maxFrameLength)
            }
            protocolVersion = packet[offset] >> 4
            frameSequence = packet[offset] & 0x0F
            offset += 1
            buffer = []
            buffer.reserveCapacity(total.value)
            expectedLength = total.value
        } else {
            guard expectedLength != nil, number.value == nextPacket else {
                throw .packetOutOfOrder(expected: nextPacket, got: number.value)
            }
        }
        guard let expected = expectedLength else { return nil }
        let data = packet[offset...]
        guard buffer.count + data.count <= expected else {
            throw .lengthOutOfRange(
                field: "BLE reassembled length", value: buffer.count + data.count, limit: expected)
        }
        buffer += data
        nextPacket = number.value + 1
        guard buffer.count == expected else { return nil }
        let frame = buffer
        reset()
        return frame
    }
}
