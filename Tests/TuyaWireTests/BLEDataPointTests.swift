import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@Suite("BLE data points, KLV (TUYA.md §1.8)")
struct BLEDataPointTests {
    @Test("DP105 bool true encodes as 69 01 01 01 in a v3 list")
    func boolV3() throws {
        let list = try BLEDataPointList(format: .v3, dataPoints: [.bool(bleDP(105), true)])
        #expect(list.encoded == hexBytes("69 01 01 01"))
        #expect(try BLEDataPointList(bytes: list.encoded, format: .v3) == list)
    }

    @Test("a v4 write of DP105 true with sn 0x01020304 encodes as in TUYA.md")
    func writeV4() throws {
        let write = BLEDataPointWriteV4(sn: 0x0102_0304, dataPoints: [.bool(bleDP(105), true)])
        #expect(try write.encoded() == hexBytes("00 01020304 69 01 0001 01"))
        #expect(try BLEDataPointWriteV4(bytes: write.encoded()) == write)
    }

    @Test("DP106 = 60 encodes as 6a 02 0004 0000003c in a v4 list")
    func valueV4() throws {
        let list = try BLEDataPointList(format: .v4, dataPoints: [.value(bleDP(106), 60)])
        #expect(list.encoded == hexBytes("6a 02 0004 0000003c"))
    }

    @Test("the TUYA.md v4 report decodes to DP11 = 87 and acks with 00 01020304 00 00 00")
    func reportV4() throws {
        let report = try BLEDataPointReportV4(
            bytes: hexBytes("00 01020304 00 00 0b 02 0004 00000057"), command: .dpReportV4)
        #expect(report.sn == 0x0102_0304)
        #expect(report.dataPoints == [.value(bleDP(11), 87)])
        #expect(report.dataPoints.first?.intValue == 87)
        #expect(report.wantsAck)
        #expect(report.ack() == hexBytes("00 01020304 00 00 00"))
    }

    @Test("typed constructors produce the Tuya value bytes")
    func constructors() throws {
        #expect(BLEDataPoint.value(bleDP(1), -1).payload == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try BLEDataPoint.string(bleDP(1), "ö1").payload == [0xC3, 0xB6, 0x31])
        #expect(try BLEDataPoint.enumeration(bleDP(1), index: 5).payload == [5])
        #expect(try BLEDataPoint.enumeration(bleDP(1), index: 300).payload == [0x01, 0x2C])
        #expect(try BLEDataPoint.enumeration(bleDP(1), index: 70000).payload == [0x00, 0x01, 0x11, 0x70])
        #expect(try BLEDataPoint.bitmap(bleDP(1), 0x3).payload == [0x03])
        #expect(try BLEDataPoint.bitmap(bleDP(1), 0x3, byteCount: 2).payload == [0x00, 0x03])
        #expect(try BLEDataPoint.bitmap(bleDP(1), 0x10000).payload == [0x00, 0x01, 0x00, 0x00])
        #expect(try BLEDataPoint.raw(bleDP(1), [9, 8]).payload == [9, 8])
        #expect(throws: WireError.self) { try BLEDataPoint.bitmap(bleDP(1), 0x1FF, byteCount: 1) }
        #expect(throws: WireError.self) { try BLEDataPoint.bitmap(bleDP(1), 1, byteCount: 3) }
        #expect(throws: WireError.self) { try BLEDataPoint.enumeration(bleDP(1), index: -1) }
    }

    @Test("every kind of data point round-trips through v3 and v4 lists")
    func roundTrips() throws {
        let dps: [BLEDataPoint] = [
            .bool(bleDP(1), false), .value(bleDP(2), Int32.min), try .string(bleDP(3), "hello"),
            try .enumeration(bleDP(4), index: 2), try .bitmap(bleDP(5), 0xDEAD_BEEF), try .raw(bleDP(255), [0, 1]),
            try .raw(bleDP(6), []),
        ]
        for format in [BLEDataPointList.Format.v3, .v4] {
            let list = try BLEDataPointList(format: format, dataPoints: dps)
            #expect(try BLEDataPointList(bytes: list.encoded, format: format).dataPoints == dps)
        }
    }

    @Test("decoding rejects DP id 0 and unknown type codes")
    func badIDAndType() {
        #expect(throws: WireError.invalidDataPoint(id: 0, reason: "DP id 0 does not exist")) {
            try BLEDataPointList(bytes: hexBytes("00 01 01 01"), format: .v3)
        }
        #expect(throws: WireError.invalidDataPoint(id: 7, reason: "unknown type code 6")) {
            try BLEDataPointList(bytes: hexBytes("07 06 01 01"), format: .v3)
        }
    }

    @Test("decoding rejects a length beyond the buffer")
    func lengthBeyondBuffer() {
        #expect(throws: WireError.truncated(what: "DP list DP7 value", needed: 13, available: 6)) {
            try BLEDataPointList(bytes: hexBytes("07 00 0a 01 02 03"), format: .v3)
        }
        #expect(throws: WireError.self) { try BLEDataPointList(bytes: hexBytes("07 00 ffff 01"), format: .v4) }
    }

    @Test(
        "decoding rejects lengths the type does not allow",
        arguments: ["01 01 02 0000", "01 02 03 000000", "01 04 03 000000", "01 05 03 000000", "01 01 00", "01 02 00"])
    func wrongLengthForType(hex: String) {
        guard
            case .invalidDataPoint(1, _) = bleError({ () throws(WireError) in
                try BLEDataPointList(bytes: hexBytes(hex), format: .v3)
            })
        else {
            Issue.record("\(hex) accepted")
            return
        }
    }

    @Test("a list cut at any length decodes only at DP boundaries and is rejected elsewhere")
    func truncatedEverywhere() throws {
        let list = try BLEDataPointList(
            format: .v4, dataPoints: [.bool(bleDP(1), true), .value(bleDP(2), 7), try .string(bleDP(3), "abc")])
        let bytes = list.encoded
        let boundaries = [0: 0, 5: 1, 13: 2, bytes.count: 3]
        for length in 0...bytes.count {
            let result = Result { () throws(WireError) in try BLEDataPointList(bytes: bytes.prefix(length), format: .v4)
            }
            if let count = boundaries[length] {
                #expect((try? result.get())?.dataPoints.count == count)
            } else {
                #expect(throws: WireError.self) { try result.get() }
            }
        }
    }

    @Test("a v3 list refuses a payload over 255 bytes and a v4 list one over 65535")
    func payloadCaps() throws {
        let long = try BLEDataPoint.raw(bleDP(9), [UInt8](repeating: 1, count: 256))
        #expect(throws: WireError.lengthOutOfRange(field: "DP9 length", value: 256, limit: 255)) {
            try BLEDataPointList(format: .v3, dataPoints: [long])
        }
        _ = try BLEDataPointList(format: .v4, dataPoints: [long])
        #expect(throws: WireError.self) { try BLEDataPoint.raw(bleDP(9), [UInt8](repeating: 1, count: 65536)) }
    }

    static let modeSpec = DataPointSpec(
        id: DataPointID(103)!, code: "mist_mode", type: .enumeration, values: ["small", "large", "off"])

    @Test("an enum label travels as its index in the profile's list, and back")
    func enumThroughProfile() throws {
        let dp = try BLEDataPoint(.enumeration("off"), spec: Self.modeSpec)
        #expect(dp == (try .enumeration(bleDP(103), index: 2)))
        #expect(try dp.value(spec: Self.modeSpec) == .enumeration("off"))
    }

    @Test("an enum index outside the profile's list is an error naming the DP")
    func unknownEnumIndex() throws {
        let dp = try BLEDataPoint.enumeration(bleDP(103), index: 7)
        let error = bleError { () throws(WireError) in try dp.value(spec: Self.modeSpec) }
        guard case .invalidDataPoint(103, let reason) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("mist_mode"))
        #expect(throws: WireError.self) { try BLEDataPoint(.enumeration("medium"), spec: Self.modeSpec) }
    }

    @Test("a value whose type differs from the profile is refused both ways")
    func typeMismatch() throws {
        #expect(throws: WireError.self) { try BLEDataPoint(.bool(true), spec: Self.modeSpec) }
        #expect(throws: WireError.self) { try BLEDataPoint.bool(bleDP(103), true).value(spec: Self.modeSpec) }
    }

    @Test(
        "every DP value type converts through its profile entry and back",
        arguments: [
            (DPValue.bool(true), DataPointType.bool), (.value(-42), .value), (.string("ff00"), .string),
            (.bitmap(0x81), .bitmap), (.raw([1, 2, 3]), .raw),
        ])
    func throughProfile(value: DPValue, type: DataPointType) throws {
        let spec = DataPointSpec(id: bleDP(20), code: "x", type: type)
        #expect(try BLEDataPoint(value, spec: spec).value(spec: spec) == value)
    }

    @Test("a string DP that is not UTF-8 is refused when converted")
    func invalidUTF8() throws {
        let dp = try BLEDataPoint(id: bleDP(20), type: .string, payload: [0xFF, 0xFE])
        #expect(dp.stringValue == nil)
        #expect(throws: WireError.self) { try dp.value(spec: DataPointSpec(id: bleDP(20), code: "x", type: .string)) }
    }
}
