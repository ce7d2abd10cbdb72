import Testing
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("BLE varint (TUYA.md §1.3)")
struct BLEVarintTests {
    static let vectors: [(Int, [UInt8])] = [
        (49, [0x31]), (200, [0xC8, 0x01]), (300, [0xAC, 0x02]), (0, [0x00]), (127, [0x7F]),
        (128, [0x80, 0x01]), (Varint.maxValue, [0xFF, 0xFF, 0xFF, 0x7F]),
    ]

    @Test("varints encode the TUYA.md examples 49, 200 and 300", arguments: vectors)
    func encodes(value: Int, bytes: [UInt8]) throws {
        #expect(try Varint(value).encoded == bytes)
        #expect(try Varint(value).byteCount == bytes.count)
    }

    @Test("varints decode the TUYA.md examples and say how many bytes they used", arguments: vectors)
    func decodes(value: Int, bytes: [UInt8]) throws {
        let varint = try Varint(bytes: bytes + [0x55, 0x80])
        #expect(varint.value == value)
        #expect(varint.byteCount == bytes.count)
    }

    @Test("a varint of five bytes is rejected as too long")
    func fiveBytes() {
        #expect(throws: WireError.varintTooLong) { try Varint(bytes: [0x80, 0x80, 0x80, 0x80, 0x01]) }
        #expect(throws: WireError.varintTooLong) { try Varint(bytes: [0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    @Test("a varint cut before its last byte is truncated")
    func truncated() {
        for bytes: [UInt8] in [[], [0x80], [0x80, 0x80], [0xAC, 0x82, 0x81]] {
            guard case .truncated = bleError({ () throws(WireError) in try Varint(bytes: bytes) }) else {
                Issue.record("\(bytes) was not reported as truncated")
                continue
            }
        }
    }

    @Test("values outside 0 through 2^28-1 cannot be encoded")
    func range() {
        #expect(throws: WireError.lengthOutOfRange(field: "varint value", value: -1, limit: Varint.maxValue)) {
            try Varint(-1)
        }
        #expect(throws: WireError.self) { try Varint(Varint.maxValue + 1) }
    }

    @Test("every value round-trips through its encoding")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 1)
        for _ in 0..<2000 {
            let value = Int.random(in: 0...Varint.maxValue, using: &generator)
            #expect(try Varint(bytes: Varint(value).encoded).value == value)
        }
    }
}
