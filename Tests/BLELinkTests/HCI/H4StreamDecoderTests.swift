import DeviceSimulator
import BLELink
import Testing
import YoullTestSupport

@Suite("H4 stream decoding")
struct H4StreamDecoderTests {
    static let commandComplete = hexBytes("04 0E 04 01 030C 00")
    static let aclPacket = hexBytes("02 4020 0700 0300 0400 0A0102")

    @Test("packets split across reads and several in one read come out whole and in order")
    func chunking() throws {
        var decoder = H4StreamDecoder()
        let stream = Self.commandComplete + Self.aclPacket + Self.commandComplete
        var packets: [H4Packet] = []
        for byte in stream { packets += try decoder.append([byte]) }
        #expect(packets.map(\.encoded) == [Self.commandComplete, Self.aclPacket, Self.commandComplete])
        var whole = H4StreamDecoder()
        #expect(try whole.append(stream).count == 3)
        #expect(whole.pendingByteCount == 0)
    }

    @Test("an incomplete packet waits for its remaining bytes")
    func partial() throws {
        var decoder = H4StreamDecoder()
        #expect(try decoder.append(Self.aclPacket.dropLast(2)).isEmpty)
        #expect(decoder.pendingByteCount == Self.aclPacket.count - 2)
        #expect(try decoder.append(Self.aclPacket.suffix(2)).map(\.type) == [.acl])
    }

    @Test("SCO and ISO packets are framed by their own length fields")
    func otherTypes() throws {
        var decoder = H4StreamDecoder()
        let packets = try decoder.append(hexBytes("03 0100 02 AABB 05 0100 0200 CCDD"))
        #expect(packets.map(\.type) == [.sco, .iso])
    }

    @Test("an unknown packet indicator fails the stream for good: H4 cannot find its place again")
    func unknownType() throws {
        var decoder = H4StreamDecoder()
        #expect(throws: HCIPacketError.unknownPacketType(0x7F)) { try decoder.append([0x7F, 0x00]) }
        #expect(throws: HCIPacketError.unknownPacketType(0x7F)) { try decoder.append(Self.commandComplete) }
    }

    @Test("an ACL length above the limit is refused before any of its bytes are kept")
    func oversized() {
        var decoder = H4StreamDecoder(limits: .init(maximumACLLength: 64))
        #expect(throws: HCIPacketError.oversized(packet: "HCI ACL data", length: 0xFFFF, maximum: 64)) {
            try decoder.append(hexBytes("02 4000 FFFF"))
        }
    }

    @Test("random bytes never trap: they end in packets or an error")
    func garbage() {
        var generator = SeededGenerator(seed: 17)
        for _ in 0..<2_000 {
            var decoder = H4StreamDecoder(limits: .init(maximumACLLength: 300))
            let bytes = generator.bytes(Int.random(in: 0...80, using: &generator))
            _ = try? decoder.append(bytes)
            #expect(decoder.pendingByteCount <= 305)
        }
    }
}
