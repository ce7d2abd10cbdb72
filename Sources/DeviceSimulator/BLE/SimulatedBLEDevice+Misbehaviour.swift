import TuyaWire

extension SimulatedBLEDevice {
    /// Faults a test or the demo asks the device to show on its notifications, the ways a
    /// flaky radio or firmware breaks the transport layer (protocol/TUYA.md §1.3). Counts
    /// apply to the next frames sent and go down by one per frame affected.
    public struct Misbehaviour: Hashable, Sendable {
        /// Frames preceded by a stray packet that belongs to no frame.
        public var garbageNotifications: Int
        /// Multi-packet frames sent without their second packet.
        public var packetGaps: Int
        /// Frames whose first packet announces a total length far beyond any real frame.
        public var oversizedLengths: Int
        /// Sends nothing at all while set (it still receives and applies writes).
        public var isSilent: Bool

        public init(garbageNotifications: Int = 0, packetGaps: Int = 0, oversizedLengths: Int = 0, isSilent: Bool = false) {
            self.garbageNotifications = garbageNotifications
            self.packetGaps = packetGaps
            self.oversizedLengths = oversizedLengths
            self.isSilent = isSilent
        }
    }

    /// A total length no reassembler should accept (real frames are under 200 bytes).
    static let oversizedTotalLength = 1_000_000

    /// Applies the requested misbehaviour to the packets of one frame.
    mutating func shape(_ packets: [[UInt8]]) -> [[UInt8]] {
        guard !misbehaviour.isSilent else { return [] }
        var packets = packets
        if misbehaviour.oversizedLengths > 0, let first = packets.first,
            let number = try? Varint(bytes: first), let total = try? Varint(bytes: first[number.byteCount...]),
            let huge = try? Varint(Self.oversizedTotalLength)
        {
            misbehaviour.oversizedLengths -= 1
            packets[0] = number.encoded + huge.encoded + first[(number.byteCount + total.byteCount)...]
        }
        if misbehaviour.packetGaps > 0, packets.count > 1 {
            misbehaviour.packetGaps -= 1
            packets.remove(at: 1)
        }
        if misbehaviour.garbageNotifications > 0 {
            misbehaviour.garbageNotifications -= 1
            // Packet number 0x7F while no frame is under way: belongs to nothing.
            packets.insert([0x7F] + randomBytes(12), at: 0)
        }
        return packets
    }
}
