/// Number Of Completed Packets (Vol 4 Part E §7.7.19): Num_Handles (1), then for each handle
/// Connection_Handle (2) · Num_Completed_Packets (2). Arrayed parameters are interleaved by
/// index (§5.2). Each packet counted frees one of the controller's ACL buffers: the host's
/// credit to send another.
public struct HCINumberOfCompletedPackets: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var count: UInt16

        public init(handle: UInt16, count: UInt16) {
            self.handle = handle
            self.count = count
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    public init(parameters: [UInt8]) throws(HCIPacketError) {
        var reader = HCIByteReader(parameters, packet: "Number Of Completed Packets event")
        let count = Int(try reader.uint8("Num_Handles"))
        var entries: [Entry] = []
        for index in 0..<count {
            let handle = try reader.uint16("Connection_Handle[\(index)]") & 0x0FFF
            entries.append(Entry(handle: handle, count: try reader.uint16("Num_Completed_Packets[\(index)]")))
        }
        try reader.expectEnd()
        self.entries = entries
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [UInt8(clamping: entries.count)]
        for entry in entries.prefix(255) {
            bytes.appendLittleEndian(entry.handle)
            bytes.appendLittleEndian(entry.count)
        }
        return bytes
    }
}
