import DeviceSimulator
import BLELink
import Testing
import YoullTestSupport

/// ACL data packets (Vol 4 Part E §5.4.2) and L2CAP basic frames (Vol 3 Part A §3.1, §7.2).
@Suite("ACL and L2CAP")
struct L2CAPTests {
    @Test("an ACL packet packs handle, boundary and broadcast flags and the length little-endian")
    func aclPacket() throws {
        let packet = HCIACLPacket(handle: 0x040, boundary: .firstFlushable, data: [0x0A, 0x0B])
        #expect(packet.body == hexBytes("4020 0200 0A0B"))
        #expect(
            try HCIACLPacket(body: hexBytes("4110 0100 FF"))
                == HCIACLPacket(handle: 0x041, boundary: .continuing, data: [0xFF]))
        #expect(throws: HCIPacketError.lengthMismatch(packet: "HCI ACL data packet", declared: 3, actual: 1)) {
            try HCIACLPacket(body: hexBytes("4020 0300 00"))
        }
    }

    @Test("an ATT PDU in a basic frame on channel 4: length, channel, payload")
    func basicFrame() throws {
        let frame = L2CAPBasicFrame(channel: L2CAPBasicFrame.attChannel, payload: hexBytes("02 1700"))
        #expect(frame.encoded == hexBytes("0300 0400 02 1700"))
        #expect(try L2CAPBasicFrame(bytes: frame.encoded) == frame)
        #expect(throws: HCIPacketError.self) { try L2CAPBasicFrame(bytes: hexBytes("0500 0400 02")) }
    }

    @Test("a frame is cut to the buffer size: first packet non-flushable, then continuing")
    func fragmentation() {
        let frame = L2CAPBasicFrame(channel: 4, payload: Array(0..<60))
        let packets = frame.aclPackets(handle: 0x40, maximumDataLength: 27)
        #expect(packets.map(\.data.count) == [27, 27, 10])
        #expect(packets.map(\.boundary) == [.firstNonFlushable, .continuing, .continuing])
        #expect(packets.flatMap(\.data) == frame.encoded)
    }

    @Test("fragments join back into the frame, whatever the cut, even inside the header")
    func reassembly() throws {
        let frame = L2CAPBasicFrame(channel: 4, payload: Array(0..<100))
        for size in [1, 3, 27, 251] {
            var reassembler = L2CAPReassembler(handle: 0x40)
            var out: [L2CAPBasicFrame] = []
            for packet in frame.aclPackets(handle: 0x40, maximumDataLength: size) {
                if let whole = try reassembler.receive(packet).frame { out.append(whole) }
            }
            #expect(out == [frame], "fragment size \(size)")
        }
    }

    @Test("a continuation with no frame under way is refused")
    func strayContinuation() {
        var reassembler = L2CAPReassembler(handle: 0x40)
        #expect(throws: L2CAPReassemblyError.continuationWithoutStart(handle: 0x40, length: 2)) {
            try reassembler.receive(HCIACLPacket(handle: 0x40, boundary: .continuing, data: [1, 2]))
        }
    }

    @Test("a new frame during an incomplete one reports the loss and keeps the new frame")
    func restart() throws {
        var reassembler = L2CAPReassembler(handle: 0x40)
        _ = try reassembler.receive(
            HCIACLPacket(handle: 0x40, boundary: .firstFlushable, data: hexBytes("0A00 0400 01")))
        let received = try reassembler.receive(
            HCIACLPacket(handle: 0x40, boundary: .firstFlushable, data: hexBytes("0100 0400 1B")))
        #expect(received.frame == L2CAPBasicFrame(channel: 4, payload: [0x1B]))
        #expect(received.lost == .previousFrameIncomplete(handle: 0x40, received: 5, expected: 14))
    }

    @Test("a declared length above the limit and fragments past the declared length are refused")
    func hostileLengths() throws {
        var reassembler = L2CAPReassembler(handle: 0x40, maximumPayloadLength: 64)
        #expect(throws: L2CAPReassemblyError.frameTooLong(handle: 0x40, length: 0xFFFF, maximum: 64)) {
            try reassembler.receive(HCIACLPacket(handle: 0x40, boundary: .firstFlushable, data: hexBytes("FFFF 0400")))
        }
        #expect(!reassembler.isIncomplete)
        _ = try reassembler.receive(
            HCIACLPacket(handle: 0x40, boundary: .firstFlushable, data: hexBytes("0200 0400 01")))
        #expect(throws: L2CAPReassemblyError.overrun(handle: 0x40, received: 8, expected: 6)) {
            try reassembler.receive(HCIACLPacket(handle: 0x40, boundary: .continuing, data: hexBytes("020304")))
        }
    }

    @Test("random fragments never trap and never hold more than one bounded frame")
    func garbage() {
        var generator = SeededGenerator(seed: 99)
        var reassembler = L2CAPReassembler(handle: 1, maximumPayloadLength: 128)
        for _ in 0..<5_000 {
            let boundary = HCIACLPacket.Boundary(rawValue: UInt8.random(in: 0...3, using: &generator))!
            let data = generator.bytes(Int.random(in: 0...40, using: &generator))
            _ = try? reassembler.receive(HCIACLPacket(handle: 1, boundary: boundary, data: data))
        }
    }

    @Test("a parameter update request is answered rejected, other signaling requests with a reject")
    func signaling() {
        let update = L2CAPBasicFrame(channel: 5, payload: hexBytes("12 07 0800 1800 2800 0000 9001"))
        #expect(L2CAPFixedChannelResponder.reply(to: update)?.payload == hexBytes("13 07 0200 0100"))
        let credit = L2CAPBasicFrame(channel: 5, payload: hexBytes("14 02 0A00 8000 4000 1700 1700 0100"))
        #expect(L2CAPFixedChannelResponder.reply(to: credit)?.payload == hexBytes("01 02 0200 0000"))
        #expect(
            L2CAPFixedChannelResponder.reply(to: L2CAPBasicFrame(channel: 5, payload: hexBytes("01 02 0200 0000")))
                == nil)
        #expect(L2CAPFixedChannelResponder.reply(to: L2CAPBasicFrame(channel: 5, payload: [0x12])) == nil)
    }

    @Test("any Security Manager PDU but Pairing Failed is answered Pairing Not Supported")
    func securityManager() {
        let request = L2CAPBasicFrame(channel: 6, payload: hexBytes("0B 01"))
        #expect(L2CAPFixedChannelResponder.reply(to: request)?.payload == hexBytes("05 05"))
        #expect(L2CAPFixedChannelResponder.reply(to: L2CAPBasicFrame(channel: 6, payload: hexBytes("05 05"))) == nil)
        #expect(L2CAPFixedChannelResponder.reply(to: L2CAPBasicFrame(channel: 4, payload: [0x0A])) == nil)
    }
}
