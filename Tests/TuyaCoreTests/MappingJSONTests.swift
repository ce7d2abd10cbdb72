import Testing
import TuyaCore

@Suite("DataPointJSON")
struct MappingJSONTests {
    let id = TestProfiles.id

    static var bulbWithRaw: DeviceProfile {
        var profile = TestProfiles.rgbcctBulb
        profile.dataPoints.append(DataPointSpec(id: DataPointID(30)!, code: "rhythm_mode", type: .raw))
        return profile
    }

    @Test("a bulb report decodes through the profile's types")
    func bulbReport() {
        let (values, issues) = DataPointJSON.decode(
            ["20": .bool(true), "21": .string("colour"), "22": .integer(500), "24": .string("00f003e803e8")],
            profile: TestProfiles.rgbcctBulb)
        #expect(issues.isEmpty)
        #expect(
            values == [
                id(20): .bool(true), id(21): .enumeration("colour"), id(22): .value(500),
                id(24): .string("00f003e803e8"),
            ])
    }

    @Test("without a profile the JSON type decides")
    func noProfile() {
        let (values, issues) = DataPointJSON.decode(
            ["1": .bool(false), "2": .integer(-7), "3": .string("x"), "4": .double(5)], profile: nil)
        #expect(issues.isEmpty)
        #expect(values == [id(1): .bool(false), id(2): .value(-7), id(3): .string("x"), id(4): .value(5)])
    }

    @Test("DPs a profile does not define are inferred from the JSON type")
    func unknownDataPoint() {
        let (values, issues) = DataPointJSON.decode(["101": .integer(3)], profile: TestProfiles.whiteBulb)
        #expect(issues.isEmpty)
        #expect(values == [id(101): .value(3)])
    }

    @Test("bitmap DPs decode as bitmaps and must fit in 32 unsigned bits")
    func bitmap() {
        let profile = TestProfiles.modernDiffuser()
        let (values, issues) = DataPointJSON.decode(
            ["11": .integer(9)], profile: profile)
        #expect(values == [id(11): .bitmap(9)] && issues.isEmpty)
        for bad: Int64 in [-1, 4_294_967_296] {
            let (values, issues) = DataPointJSON.decode(["11": .integer(bad)], profile: profile)
            #expect(values.isEmpty)
            #expect(issues == [MappingIssue(key: "11", problem: .integerOutOfRange(bad))])
        }
    }

    @Test("enum labels are checked against the profile; a bare number naming a label is accepted")
    func enums() {
        let profile = TestProfiles.modernDiffuser()
        let (values, issues) = DataPointJSON.decode(
            ["3": .string("huge"), "4": .integer(3), "9": .string("colour")], profile: profile)
        #expect(values == [id(4): .enumeration("3"), id(9): .enumeration("colour")])
        #expect(
            issues == [
                MappingIssue(key: "3", problem: .unknownEnumLabel("huge", valid: ["large", "small", "interval"]))
            ])
    }

    @Test("raw DPs travel as base64")
    func raw() {
        let (values, issues) = DataPointJSON.decode(
            ["30": .string("AQID"), "25": .string("abc")], profile: Self.bulbWithRaw)
        #expect(values == [id(30): .raw([1, 2, 3]), id(25): .string("abc")] && issues.isEmpty)
        let (bad, badIssues) = DataPointJSON.decode(["30": .string("!!not base64!!")], profile: Self.bulbWithRaw)
        #expect(bad.isEmpty && badIssues == [MappingIssue(key: "30", problem: .invalidBase64)])
    }

    @Test("a hostile dps object yields issues for the bad keys and keeps the good ones")
    func hostile() {
        let dps: [String: JSONValue] = [
            "abc": .integer(1), "0": .bool(true), "256": .bool(true), "-1": .bool(true), "+1": .bool(true),
            " 1": .bool(true), "1e1": .bool(true), "": .bool(true), String(repeating: "9", count: 10_000): .bool(true),
            "٣": .bool(true),
            "20": .null, "21": .object(["a": .integer(1)]), "22": .array([.integer(1)]), "23": .double(1.5),
            "24": .integer(3_000_000_000), "26": .integer(Int64.min), "25": .bool(true), "1": .double(.nan),
            "2": .double(.infinity), "22 ": .integer(1),
            "7": .integer(42),
        ]
        let (values, issues) = DataPointJSON.decode(dps, profile: TestProfiles.rgbcctBulb)
        #expect(values == [id(7): .value(42)])
        #expect(issues.count == dps.count - 1)
        #expect(issues.map(\.key) == issues.map(\.key).sorted())
        #expect(issues.contains(MappingIssue(key: "20", problem: .unsupportedJSON("null"))))
        #expect(issues.contains(MappingIssue(key: "24", problem: .wrongType(expected: .string, found: "integer"))))
        #expect(issues.contains(MappingIssue(key: "25", problem: .wrongType(expected: .string, found: "bool"))))
        #expect(issues.contains(MappingIssue(key: "26", problem: .integerOutOfRange(Int64.min))))
        #expect(issues.contains(MappingIssue(key: "abc", problem: .notADataPointID)))
    }

    @Test("integers outside Int32 are rejected for value DPs and unknown DPs")
    func int32Bounds() {
        let (values, issues) = DataPointJSON.decode(
            [
                "22": .integer(Int64(Int32.max) + 1), "50": .integer(Int64(Int32.min) - 1),
                "51": .integer(Int64(Int32.min)),
            ],
            profile: TestProfiles.rgbcctBulb)
        #expect(values == [id(51): .value(Int32.min)])
        #expect(issues.map(\.key) == ["22", "50"])
    }

    @Test("issue messages name the key and stay short for huge keys")
    func issueMessages() {
        let key = String(repeating: "x", count: 5000)
        let (_, issues) = DataPointJSON.decode([key: .bool(true)], profile: nil)
        #expect(issues.count == 1)
        #expect((issues.first?.description.count ?? .max) < 100)
    }

    @Test("encode writes enums as labels, raw as base64 and bitmaps as integers")
    func encode() {
        let dps = DataPointJSON.encode([
            id(1): .bool(true), id(2): .value(-5), id(3): .enumeration("small"), id(4): .raw([1, 2, 3]),
            id(5): .bitmap(0xFFFF_FFFF), id(6): .string("00f003e803e8"),
        ])
        #expect(
            dps == [
                "1": .bool(true), "2": .integer(-5), "3": .string("small"), "4": .string("AQID"),
                "5": .integer(4_294_967_295), "6": .string("00f003e803e8"),
            ])
    }

    @Test("encode then decode with the profile returns the same values")
    func roundTrip() {
        let values: DataPoints = [
            id(20): .bool(true), id(21): .enumeration("scene"), id(22): .value(10), id(25): .string("00"),
            id(30): .raw([0, 255, 7]),
        ]
        let (back, issues) = DataPointJSON.decode(DataPointJSON.encode(values), profile: Self.bulbWithRaw)
        #expect(back == values && issues.isEmpty)
    }
}
