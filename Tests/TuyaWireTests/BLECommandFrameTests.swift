import Testing
import TuyaWire
import YoullTestSupport

@Suite("BLE command frame (TUYA.md §1.5)")
struct BLECommandFrameTests {
    @Test("the device-info request with sn 1 has the TUYA.md header and CRC 0x9269")
    func crcExample() throws {
        let frame = try BLECommandFrame(sn: 1, command: .deviceInfo)
        #expect(frame.encoded == hexBytes("00000001 00000000 0000 0000 9269"))
    }

    @Test("a frame round-trips through its padded encoding")
    func roundTrip() throws {
        let frame = try BLECommandFrame(sn: 0x0102_0304, ackSN: 7, command: .dpWriteV4, data: [1, 2, 3])
        #expect(try BLECommandFrame(bytes: ZeroPadding.pad(frame.encoded)) == frame)
        #expect(try BLECommandFrame(bytes: frame.encoded) == frame)
    }

    @Test("a reply carries the same command and the answered sn")
    func reply() throws {
        let report = try BLECommandFrame(sn: 9, command: .dpReportV3, data: [0x0b, 0x01, 0x01, 0x01])
        let ack = try report.reply(sn: 4)
        #expect(ack.sn == 4 && ack.ackSN == 9 && ack.command == .dpReportV3 && ack.data.isEmpty)
    }

    @Test("a plaintext shorter than 14 bytes is truncated at every length")
    func truncated() throws {
        let bytes = try BLECommandFrame(sn: 1, command: .query).encoded
        for length in 0..<14 {
            #expect(throws: WireError.truncated(what: "BLE command frame", needed: 14, available: length)) {
                try BLECommandFrame(bytes: Array(bytes.prefix(length)))
            }
        }
    }

    @Test("a len field larger than the buffer means the key is wrong")
    func lengthTooLarge() throws {
        var bytes = ZeroPadding.pad(try BLECommandFrame(sn: 1, command: .query, data: [1]).encoded)
        bytes[11] = 0x40
        guard case .keyMismatch = bleError({ () throws(WireError) in try BLECommandFrame(bytes: bytes) }) else {
            Issue.record("not a key mismatch")
            return
        }
    }

    @Test("16 or more bytes of padding mean the key is wrong")
    func tooMuchPadding() throws {
        let encoded = try BLECommandFrame(sn: 1, command: .query, data: [1]).encoded
        let tooLong = ZeroPadding.pad(encoded) + [UInt8](repeating: 0, count: 16)
        guard case .keyMismatch = bleError({ () throws(WireError) in try BLECommandFrame(bytes: tooLong) }) else {
            Issue.record("not a key mismatch")
            return
        }
    }

    @Test("non-zero padding after a frame whose CRC-16 is right says the padding is wrong, not the key")
    func nonZeroPadding() throws {
        var bytes = ZeroPadding.pad(try BLECommandFrame(sn: 1, command: .query, data: [1]).encoded)
        bytes[bytes.count - 1] = 1
        guard case .malformed(let message) = bleError({ () throws(WireError) in try BLECommandFrame(bytes: bytes) })
        else {
            Issue.record("not reported as bad padding")
            return
        }
        #expect(message.contains("padding") && message.contains("not zeros"))
        #expect(!message.contains("key"))
    }

    @Test("a consistent length with a wrong CRC is corruption, not a key problem")
    func badCRC() throws {
        var bytes = ZeroPadding.pad(try BLECommandFrame(sn: 1, command: .deviceInfo).encoded)
        bytes[13] ^= 0x01
        #expect(throws: WireError.checksumMismatch(what: "BLE frame CRC-16", expected: 0x9268, actual: 0x9269)) {
            try BLECommandFrame(bytes: bytes)
        }
        var data = ZeroPadding.pad(try BLECommandFrame(sn: 1, command: .pair, data: [1, 2, 3]).encoded)
        data[12] ^= 0xFF
        guard case .checksumMismatch = bleError({ () throws(WireError) in try BLECommandFrame(bytes: data) }) else {
            Issue.record("not a checksum mismatch")
            return
        }
    }

    @Test("data longer than the 16-bit len field is refused")
    func dataTooLong() {
        #expect(throws: WireError.self) {
            try BLECommandFrame(sn: 1, command: .pair, data: [UInt8](repeating: 0, count: 65536))
        }
    }

    @Test("command codes carry the TUYA.md §1.6 values")
    func codes() {
        let expected: [(BLECommand, UInt16)] = [
            (.deviceInfo, 0x0000), (.pair, 0x0001), (.dpWriteV3, 0x0002), (.query, 0x0003), (.unbind, 0x0005),
            (.reset, 0x0006), (.dpWriteV4, 0x0027), (.dpReportV3, 0x8001), (.dpReportV3WithTime, 0x8003),
            (.dpReportSigned, 0x8004), (.dpReportSignedWithTime, 0x8005), (.dpReportV4, 0x8006),
            (.dpReportV4WithTime, 0x8007), (.timeRequestBinary, 0x8010), (.timeRequestString, 0x8011),
            (.timeRequestDate, 0x8012),
        ]
        for (command, code) in expected { #expect(command.rawValue == code) }
        #expect(BLECommand.dpReportV4.description == "0x8006")
    }
}
