import Testing
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("BLE fragmentation and reassembly (TUYA.md §1.3)")
struct BLEFragmentationTests {
    @Test("a 33-byte device-info frame splits as in TUYA.md: 00 21 <ver<<4> + 17 bytes, then 01 + 16")
    func tuyaExample() throws {
        let frame = (0..<33).map { UInt8($0) }
        let packets = try BLEFragmenter(protocolVersion: 3).packets(for: frame)
        #expect(packets.count == 2)
        #expect(packets[0] == [0x00, 0x21, 0x30] + frame[0..<17])
        #expect(packets[1] == [0x01] + frame[17...])
    }

    @Test("the sequence number fills the low nibble of the version byte")
    func sequenceNibble() throws {
        let packets = try BLEFragmenter(protocolVersion: 4).packets(for: [9, 9], sequence: 0x1A)
        #expect(packets == [[0x00, 0x02, 0x4A, 9, 9]])
    }

    @Test("packets never exceed the MTU and reassemble to the frame for many sizes and MTUs")
    func sizesAndMTUs() throws {
        var generator = SeededGenerator(seed: 2)
        for mtu in 8...40 {
            for size in stride(from: 1, through: 300, by: 7) {
                let frame = generator.bytes(size)
                let packets = try BLEFragmenter(protocolVersion: 3, mtu: mtu).packets(for: frame)
                #expect(packets.allSatisfy { $0.count <= mtu })
                var reassembler = BLEReassembler()
                var result: [UInt8]?
                for (index, packet) in packets.enumerated() {
                    result = try reassembler.receive(packet)
                    #expect((result == nil) == (index < packets.count - 1))
                }
                #expect(result == frame)
                #expect(reassembler.isIdle)
            }
        }
    }

    @Test("a frame of more than 128 packets uses two-byte packet numbers and still reassembles")
    func longFrame() throws {
        let frame = SeededGenerator(seed: 3).bytesCopy(3000)
        let packets = try BLEFragmenter(protocolVersion: 2).packets(for: frame)
        #expect(packets.count > 128)
        #expect(packets[128].prefix(2) == [0x80, 0x01])
        var reassembler = BLEReassembler()
        var result: [UInt8]?
        for packet in packets { result = try reassembler.receive(packet) }
        #expect(result == frame)
        #expect(reassembler.protocolVersion == 2)
    }

    @Test("the reassembler reports the version and sequence nibbles of the frame")
    func versionNibble() throws {
        var reassembler = BLEReassembler()
        _ = try reassembler.receive([0x00, 0x02, 0x45, 1])
        #expect(reassembler.protocolVersion == 4)
        #expect(reassembler.frameSequence == 5)
        #expect(!reassembler.isIdle)
    }

    @Test("the fragmenter refuses an MTU with no room for data, an empty frame and a version over 15")
    func fragmenterLimits() {
        #expect(throws: WireError.lengthOutOfRange(field: "BLE MTU", value: 3, limit: 4)) {
            try BLEFragmenter(protocolVersion: 3, mtu: 3).packets(for: [1, 2])
        }
        #expect(throws: WireError.self) { try BLEFragmenter(protocolVersion: 3).packets(for: []) }
        #expect(throws: WireError.self) { try BLEFragmenter(protocolVersion: 16).packets(for: [1]) }
    }

    @Test("a gap in packet numbers is out of order and drops the partial frame")
    func gap() throws {
        let packets = try BLEFragmenter(protocolVersion: 3).packets(for: [UInt8](repeating: 7, count: 60))
        var reassembler = BLEReassembler()
        #expect(try reassembler.receive(packets[0]) == nil)
        #expect(try reassembler.receive(packets[1]) == nil)
        #expect(throws: WireError.packetOutOfOrder(expected: 2, got: 3)) { try reassembler.receive(packets[3]) }
        #expect(reassembler.isIdle)
        #expect(throws: WireError.packetOutOfOrder(expected: 0, got: 2)) { try reassembler.receive(packets[2]) }
    }

    @Test("a repeated packet is out of order")
    func duplicate() throws {
        let packets = try BLEFragmenter(protocolVersion: 3).packets(for: [UInt8](repeating: 7, count: 60))
        var reassembler = BLEReassembler()
        _ = try reassembler.receive(packets[0])
        _ = try reassembler.receive(packets[1])
        #expect(throws: WireError.packetOutOfOrder(expected: 2, got: 1)) { try reassembler.receive(packets[1]) }
    }

    @Test("a packet 0 restarts reassembly, discarding the partial frame")
    func restart() throws {
        let first = try BLEFragmenter(protocolVersion: 3).packets(for: [UInt8](repeating: 1, count: 50))
        let second = try BLEFragmenter(protocolVersion: 3).packets(for: [UInt8](repeating: 2, count: 30))
        var reassembler = BLEReassembler()
        _ = try reassembler.receive(first[0])
        _ = try reassembler.receive(first[1])
        #expect(try reassembler.receive(second[0]) == nil)
        #expect(try reassembler.receive(second[1]) == [UInt8](repeating: 2, count: 30))
    }

    @Test("a total length over the cap is refused before anything is buffered")
    func overCap() {
        var reassembler = BLEReassembler(maxFrameLength: 4096)
        // total_len = 4097 = 0x81 0x20.
        #expect(throws: WireError.lengthOutOfRange(field: "BLE frame total length", value: 4097, limit: 4096)) {
            try reassembler.receive([0x00, 0x81, 0x20, 0x30, 1, 2, 3])
        }
        // The largest total a 4-byte varint can carry.
        #expect(throws: WireError.self) { try reassembler.receive([0x00, 0xFF, 0xFF, 0xFF, 0x7F, 0x30]) }
        #expect(throws: WireError.lengthOutOfRange(field: "BLE frame total length", value: 0, limit: 4096)) {
            try reassembler.receive([0x00, 0x00, 0x30])
        }
        #expect(reassembler.isIdle)
    }

    @Test("data beyond the announced total length is an error")
    func excessData() throws {
        var reassembler = BLEReassembler()
        #expect(throws: WireError.lengthOutOfRange(field: "BLE reassembled length", value: 4, limit: 3)) {
            try reassembler.receive([0x00, 0x03, 0x30, 1, 2, 3, 4])
        }
        _ = try reassembler.receive([0x00, 0x05, 0x30, 1, 2, 3])
        #expect(throws: WireError.lengthOutOfRange(field: "BLE reassembled length", value: 6, limit: 5)) {
            try reassembler.receive([0x01, 4, 5, 6])
        }
    }

    @Test("empty, headerless and long-varint packets are rejected")
    func hostileHeaders() {
        var reassembler = BLEReassembler()
        #expect(throws: WireError.self) { try reassembler.receive([]) }
        #expect(throws: WireError.truncated(what: "BLE first packet", needed: 3, available: 2)) {
            try reassembler.receive([0x00, 0x05])
        }
        #expect(throws: WireError.self) { try reassembler.receive([0x00]) }
        #expect(throws: WireError.varintTooLong) { try reassembler.receive([0x80, 0x80, 0x80, 0x80, 0x00]) }
        #expect(throws: WireError.varintTooLong) { try reassembler.receive([0x00, 0x80, 0x80, 0x80, 0x80, 0x01]) }
    }
}

extension SeededGenerator {
    func bytesCopy(_ count: Int) -> [UInt8] {
        var copy = self
        return copy.bytes(count)
    }
}
