import Testing
import TuyaWire
import YoullTestSupport

@Suite("BLE command bodies (TUYA.md §1.6, §1.7)")
struct BLEBodyTests {
    static let authMaterial = (0..<32).map { UInt8(0xA0 + $0 % 16) }

    static func deviceInfoBytes(extended: Bool, keyLength: UInt8 = 8) -> [UInt8] {
        var bytes: [UInt8] = [1, 2, 4, 1, 0x05, 1, 1, 2, 3, 4, 5, 6, 3, 4] + authMaterial
        guard extended else { return bytes }
        bytes += [1, 0, 5, 2, 0, 1, 0x00, 0x03, 0]
        bytes += Array("vdevo123456789012345".utf8) + [0, 0]
        bytes += [1, 1, 1, 2, 2, 2, 0x01, keyLength] + [UInt8](repeating: 0xEE, count: Int(keyLength))
        return bytes
    }

    @Test("a 46-byte device-info reply gives versions, bound flag, srand and the opaque auth material")
    func deviceInfoShort() throws {
        let info = try BLEDeviceInfo(bytes: Self.deviceInfoBytes(extended: false))
        #expect(info.firmwareVersion == .init(major: 1, minor: 2))
        #expect(info.protocolVersion.major == 4 && info.protocolVersion.minor == 1)
        #expect(info.flags == 5 && info.isBound)
        #expect(info.srand == [1, 2, 3, 4, 5, 6])
        #expect(info.hardwareVersion == .init(major: 3, minor: 4))
        #expect(info.authMaterial == Self.authMaterial)
        #expect(info.extended == nil)
        #expect(try info.encoded() == Self.deviceInfoBytes(extended: false))
    }

    @Test("a full SDK v4 device-info reply gives the extended fields and round-trips")
    func deviceInfoFull() throws {
        let bytes = Self.deviceInfoBytes(extended: true)
        let info = try BLEDeviceInfo(bytes: bytes)
        let extended = try #require(info.extended)
        #expect(extended.firmwareVersion == [1, 0, 5])
        #expect(extended.communicationCapability == 3)
        #expect(extended.virtualIDString == "vdevo123456789012345")
        #expect(extended.wifiRegisterMode == 1)
        #expect(extended.firmwareKey.count == 8)
        #expect(try info.encoded() == bytes)
    }

    @Test("a device-info reply shorter than 12 bytes is truncated at every length; 12 bytes suffice")
    func deviceInfoTruncated() throws {
        let bytes = Self.deviceInfoBytes(extended: false)
        for length in 0..<12 {
            guard
                case .truncated = bleError({ () throws(WireError) in
                    try BLEDeviceInfo(bytes: Array(bytes.prefix(length)))
                })
            else {
                Issue.record("length \(length) accepted")
                continue
            }
        }
        for length in 12...bytes.count {
            #expect(try BLEDeviceInfo(bytes: Array(bytes.prefix(length))).srand == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test(
        "a malformed optional tail (firmware key length not 0, 8 or 16, or longer than the reply) is ignored and said why; the first 46 bytes still count"
    )
    func deviceInfoBadKeyLength() throws {
        let odd = try BLEDeviceInfo(bytes: Self.deviceInfoBytes(extended: true, keyLength: 5))
        #expect(odd.extended == nil)
        #expect(odd.ignoredTail?.contains("5 is not 0, 8 or 16") == true, "\(odd.ignoredTail ?? "nil")")
        #expect(odd.srand == [1, 2, 3, 4, 5, 6] && odd.authMaterial?.count == 32)
        let cut = try BLEDeviceInfo(bytes: Array(Self.deviceInfoBytes(extended: true, keyLength: 16).dropLast(3)))
        #expect(cut.extended == nil && cut.ignoredTail != nil)
        #expect(try BLEDeviceInfo(bytes: Self.deviceInfoBytes(extended: true)).ignoredTail == nil)
    }

    @Test("the device-info description leaves out the auth material and firmware key")
    func deviceInfoRedacted() throws {
        let info = try BLEDeviceInfo(bytes: Self.deviceInfoBytes(extended: true))
        let text = "\(info)"
        #expect(!text.contains("a0a1") && !text.contains("eeee"))
        #expect(text.contains("vdevo123456789012345"))
    }

    @Test("the device-info request body is empty or a 2-byte MTU")
    func deviceInfoRequest() throws {
        #expect(BLEDeviceInfoRequest().encoded == [])
        #expect(BLEDeviceInfoRequest(mtu: 20).encoded == [0x00, 0x14])
        #expect(try BLEDeviceInfoRequest(bytes: [0x00, 0xF3]).mtu == 0xF3)
        #expect(try BLEDeviceInfoRequest(bytes: []).mtu == nil)
        #expect(throws: WireError.self) { try BLEDeviceInfoRequest(bytes: [1]) }
        #expect(throws: WireError.self) { try BLEDeviceInfoRequest(bytes: [1, 2, 3]) }
    }

    @Test("the pair request is uuid, local-key prefix and zero-padded devId in 44 bytes")
    func pairRequest() throws {
        let request = try BLEPairRequest(
            uuid: "tuya1234abcd5678", localKey: BLEVectors.localKey, devId: "bf12345678abcdef")
        let bytes = request.encoded
        #expect(bytes.count == 44)
        #expect(bytes == Array("tuya1234abcd5678012345bf12345678abcdef".utf8) + [UInt8](repeating: 0, count: 6))
        #expect(try BLEPairRequest(bytes: bytes) == request)
        #expect(!"\(request)".contains("012345"))
    }

    @Test("the pair request refuses wrong lengths and non-ASCII text")
    func pairRequestInvalid() {
        let cases: [(String, String, String)] = [
            ("tuya1234abcd567", "012345", "dev"), ("tuya1234abcd5678", "01234", "dev"),
            ("tuya1234abcd5678", "012345", String(repeating: "d", count: 23)), ("tuya1234abcd5678", "012345", ""),
            ("tuya1234abcd567é", "012345", "dev"), ("tuya1234abcd5678", "012345", "dév"),
        ]
        for (uuid, prefix, devId) in cases {
            #expect(throws: WireError.self) { try BLEPairRequest(uuid: uuid, loginKeyPrefix: prefix, devId: devId) }
        }
        var bytes =
            (try? BLEPairRequest(uuid: "tuya1234abcd5678", loginKeyPrefix: "012345", devId: "dev").encoded) ?? []
        #expect(throws: WireError.self) { try BLEPairRequest(bytes: Array(bytes.dropLast())) }
        bytes[30] = 0x41
        #expect(throws: WireError.self) { try BLEPairRequest(bytes: bytes) }
        bytes[30] = 0
        bytes[2] = 0xC3
        #expect(throws: WireError.self) { try BLEPairRequest(bytes: bytes) }
    }

    @Test("pair results 0 and 2 count as paired, 1 as failed, anything else is refused")
    func pairResult() throws {
        #expect(try BLEPairResult(bytes: [0]).isPaired)
        #expect(try !BLEPairResult(bytes: [1]).isPaired)
        #expect(try BLEPairResult(bytes: [2]) == .alreadyBound)
        #expect(try BLEPairResult(bytes: [2]).isPaired)
        #expect(throws: WireError.self) { try BLEPairResult(bytes: [3]) }
        #expect(throws: WireError.self) { try BLEPairResult(bytes: []) }
        #expect(throws: WireError.self) { try BLEPairResult(bytes: [0, 0]) }
    }

    @Test("the 0x8011 time reply is 13 ms digits and the offset in hours × 100, from the given time")
    func timeString() throws {
        let reply = try BLETimeStringReply(unixMilliseconds: 1_700_000_000_123, utcOffsetSeconds: 8 * 3600)
        #expect(reply.encoded == Array("1700000000123".utf8) + [0x03, 0x20])
        #expect(try BLETimeStringReply(bytes: reply.encoded) == reply)
        #expect(
            try BLETimeStringReply(unixMilliseconds: 0, utcOffsetSeconds: -5 * 3600).encoded
                == Array("0000000000000".utf8) + [0xFE, 0x0C])
        #expect(try BLETimeStringReply(unixMilliseconds: 1, utcOffsetSeconds: 19800).timezoneHundredths == 550)
        #expect(throws: WireError.self) {
            try BLETimeStringReply(unixMilliseconds: 10_000_000_000_000, utcOffsetSeconds: 0)
        }
        #expect(throws: WireError.self) { try BLETimeStringReply(unixMilliseconds: 1, utcOffsetSeconds: 15 * 3600) }
        #expect(throws: WireError.self) { try BLETimeStringReply(bytes: Array("17000000001x3".utf8) + [0, 0]) }
    }

    struct DateCase: Sendable, CustomTestStringConvertible {
        var ms: Int64
        var offset: Int
        var expected: [UInt8]
        var testDescription: String { "\(ms) ms at UTC\(offset / 3600)" }
    }

    static let dateCases: [DateCase] = [
        DateCase(ms: 1_700_000_000_000, offset: 0, expected: [23, 11, 14, 22, 13, 20, 1, 0x00, 0x00]),
        DateCase(ms: 1_700_000_000_999, offset: 8 * 3600, expected: [23, 11, 15, 6, 13, 20, 2, 0x03, 0x20]),
        DateCase(ms: 1_709_208_000_000, offset: 0, expected: [24, 2, 29, 12, 0, 0, 3, 0x00, 0x00]),
        DateCase(ms: 951_868_800_000, offset: 0, expected: [0, 3, 1, 0, 0, 0, 2, 0x00, 0x00]),
        DateCase(ms: 0, offset: -12 * 3600, expected: [69, 12, 31, 12, 0, 0, 2, 0xFB, 0x50]),
    ]

    @Test("the 0x8012 date reply gives the local date with Monday = 0", arguments: dateCases)
    func timeDate(_ c: DateCase) throws {
        let reply = try BLETimeDateReply(unixMilliseconds: c.ms, utcOffsetSeconds: c.offset)
        #expect(reply.encoded == c.expected)
        #expect(try BLETimeDateReply(bytes: reply.encoded) == reply)
    }

    @Test("the v4 write response is 6 bytes with the echoed sn and status")
    func writeResponse() throws {
        let response = try BLEDataPointWriteV4Response(bytes: hexBytes("00 01020304 01"))
        #expect(response.sn == 0x0102_0304 && !response.isSuccess)
        #expect(response.encoded == hexBytes("00 01020304 01"))
        #expect(throws: WireError.self) { try BLEDataPointWriteV4Response(bytes: hexBytes("00 01020304")) }
        #expect(throws: WireError.self) { try BLEDataPointWriteV4Response(bytes: hexBytes("01 01020304 00")) }
    }

    @Test("a timed v4 report (0x8007) with the no-ack bit decodes, wants no ack and round-trips")
    func reportV4Timed() throws {
        let bytes = hexBytes("00 00000009 81 02 01 65536f00 01 01 0001 01")
        let report = try BLEDataPointReportV4(bytes: bytes, command: .dpReportV4WithTime)
        #expect(report.time == .seconds(0x6553_6F00))
        #expect(!report.wantsAck && report.mode == 2)
        #expect(report.dataPoints == [.bool(bleDP(1), true)])
        #expect(try report.encoded() == bytes)
        #expect(report.command == .dpReportV4WithTime)
        #expect(throws: WireError.self) { try BLEDataPointReportV4(bytes: bytes, command: .dpReportV3) }
        #expect(throws: WireError.self) {
            try BLEDataPointReportV4(bytes: [1] + bytes.dropFirst(), command: .dpReportV4WithTime)
        }
    }

    @Test("v3 reports decode without time (0x8001) and with ms-string or seconds time (0x8003)")
    func reportV3() throws {
        let plain = try BLEDataPointReportV3(bytes: hexBytes("69 01 01 01"), command: .dpReportV3)
        #expect(plain.time == nil && plain.dataPoints == [.bool(bleDP(105), true)])
        let msBytes = [0] + Array("1700000000123".utf8) + hexBytes("69 01 01 00")
        let ms = try BLEDataPointReportV3(bytes: msBytes, command: .dpReportV3WithTime)
        #expect(ms.time == .milliseconds(1_700_000_000_123))
        #expect(try ms.encoded() == msBytes)
        let seconds = try BLEDataPointReportV3(
            bytes: hexBytes("01 6553f100 0b 02 04 00000057"), command: .dpReportV3WithTime)
        #expect(seconds.time?.unixMilliseconds == 1_700_000_000_000)
        #expect(seconds.dataPoints.first?.intValue == 87)
        #expect(throws: WireError.self) {
            try BLEDataPointReportV3(bytes: hexBytes("02 00"), command: .dpReportV3WithTime)
        }
        #expect(throws: WireError.self) { try BLEDataPointReportV3(bytes: [], command: .dpReportV4) }
        #expect(throws: WireError.self) { try BLEReportTime.milliseconds(-1).encoded() }
    }
}
