import Testing
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("CRC-32 and CRC-16/MODBUS")
struct ChecksumTests {
    let check = Array("123456789".utf8)

    @Test("CRC-32 of \"123456789\" is the IEEE check value 0xCBF43926")
    func crc32CheckValue() {
        #expect(CRC32.checksum(check) == 0xCBF4_3926)
    }

    @Test("CRC-32 of empty input is 0")
    func crc32Empty() {
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test(
        "an incremental CRC-32 gives the same value for every split of the input",
        arguments: [
            [9], [1, 8], [4, 5], [8, 1], [3, 3, 3], [1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 9, 0],
        ])
    func crc32Running(splits: [Int]) {
        var running = CRC32.Running()
        var offset = 0
        for size in splits {
            running.update(check[offset..<(offset + size)])
            offset += size
        }
        #expect(running.value == 0xCBF4_3926)
    }

    @Test("the slicing-by-8 CRC-32 agrees with the bitwise definition on long inputs")
    func crc32LongInput() {
        var generator = SeededGenerator(seed: 32)
        for length in [7, 8, 9, 63, 64, 65, 1000] {
            let data = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            #expect(CRC32.checksum(data) == ~crc, "length \(length)")
            var split = CRC32.Running()
            split.update(data[..<(length / 3)])
            split.update(data[(length / 3)...])
            #expect(split.value == ~crc, "split, length \(length)")
        }
    }

    @Test("CRC-16/MODBUS of \"123456789\" is the check value 0x4B37")
    func crc16CheckValue() {
        #expect(CRC16Modbus.checksum(check) == 0x4B37)
    }

    @Test("the BLE device-info request header with sn 1 has CRC-16 0x9269 (TUYA.md §1.5)")
    func crc16DeviceInfoHeader() {
        let header: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(CRC16Modbus.checksum(header) == 0x9269)
    }
}
