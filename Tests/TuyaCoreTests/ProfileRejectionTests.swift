import Testing

@testable import TuyaCore

/// One test per rule of the document and `data_points:` schema: each checks the error's key path and reason.
@Suite("Profile rejections: document and data points")
struct ProfileRejectionTests {
    typealias F = ProfileFixture

    @Test("the fixture itself is a valid profile")
    func fixtureLoads() throws {
        let profile = try ProfileLoader.parse(yaml: F.base, source: "fixture")
        #expect(profile.id == "test-diffuser")
        #expect(profile.frameGapMilliseconds == 250)
        #expect(profile.capabilities[.mist]?.dataPoint.intValue == 2)
    }

    @Test("a profile without frame_gap_ms takes the configured default (devices.frame_gap); its own wins")
    func defaultFrameGap() throws {
        let without = F.replacing("frame_gap_ms: 250\n", with: "")
        #expect(try ProfileLoader.parse(yaml: without, source: "fixture").frameGapMilliseconds == 300)
        #expect(
            try ProfileLoader.parse(yaml: without, source: "fixture", defaultFrameGap: 40).frameGapMilliseconds == 40)
        #expect(
            try ProfileLoader.parse(yaml: F.base, source: "fixture", defaultFrameGap: 40).frameGapMilliseconds == 250)
        var library = ProfileLibrary()
        library.add(folder: [.init(path: "a.yaml", text: .success(without))], defaultFrameGap: 0)
        #expect(library.profile(id: "test-diffuser")?.frameGapMilliseconds == 0)
    }

    @Test("a document that is a list, not a mapping, is rejected")
    func notAMapping() {
        F.expectRejection("- id: x\n- name: y\n", keyPath: "", reason: "expected a mapping, found a list")
    }

    @Test("an unknown top-level key is rejected and the allowed keys are listed")
    func unknownTopLevelKey() {
        let error = F.expectRejection(
            F.base + "colour_temp: 3\n", keyPath: "colour_temp", reason: "unknown key 'colour_temp'")
        #expect(error?.reason.contains("data_points") == true)
        #expect(error?.line == F.base.filter { $0 == "\n" }.count + 1)
    }

    @Test("an unknown key inside a data point is rejected")
    func unknownDataPointKey() {
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "minimum: 0, max: 255"),
            keyPath: "data_points[3].minimum", reason: "unknown key 'minimum'")
    }

    @Test("an unknown key inside a maintenance trigger is rejected")
    func unknownTriggerKey() {
        F.expectRejection(
            F.replacing("{ days: 30 }", with: "{ weeks: 4 }"),
            keyPath: "maintenance[1].triggers[1].weeks", reason: "unknown key 'weeks'")
    }

    @Test("a missing required top-level key is named")
    func missingName() {
        F.expectRejection(
            F.replacing("name: Test diffuser\n", with: ""), keyPath: "", reason: "missing required key 'name'")
    }

    @Test("a data point without a type is rejected at that data point")
    func missingType() {
        F.expectRejection(
            F.replacing("{ id: 1, code: switch, type: bool }", with: "{ id: 1, code: switch }"),
            keyPath: "data_points[0]", reason: "missing required key 'type'")
    }

    @Test("a quoted number where a DP id belongs is a wrong scalar type")
    func quotedID() {
        F.expectRejection(
            F.replacing("{ id: 1, code: switch", with: "{ id: \"1\", code: switch"),
            keyPath: "data_points[0].id", reason: "expected a whole number")
    }

    @Test("a word where frame_gap_ms expects a number is a wrong scalar type")
    func frameGapNotANumber() {
        F.expectRejection(
            F.replacing("frame_gap_ms: 250", with: "frame_gap_ms: fast"),
            keyPath: "frame_gap_ms", reason: "expected a whole number, found 'fast'")
    }

    @Test("a list where the name string belongs is a wrong type")
    func nameIsAList() {
        F.expectRejection(
            F.replacing("name: Test diffuser", with: "name: [a, b]"), keyPath: "name",
            reason: "expected a string, found a list")
    }

    @Test("DP ids 0 and 256 are outside 1...255", arguments: [0, 256, -3])
    func dataPointIDOutOfRange(id: Int) {
        F.expectRejection(
            F.replacing("{ id: 1, code: switch", with: "{ id: \(id), code: switch"),
            keyPath: "data_points[0].id", reason: "outside 1...255")
    }

    @Test("a duplicate DP id names both places")
    func duplicateDataPointID() {
        F.expectRejection(
            F.replacing("{ id: 2, code: switch_spray", with: "{ id: 1, code: switch_spray"),
            keyPath: "data_points[1].id", reason: "duplicate DP id 1 (also at data_points[0])")
    }

    @Test("a duplicate DP code names both places")
    func duplicateDataPointCode() {
        F.expectRejection(
            F.replacing("code: switch_spray", with: "code: switch"),
            keyPath: "data_points[1].code", reason: "duplicate DP code 'switch' (also at data_points[0])")
    }

    @Test("an unknown DP type lists the known ones")
    func unknownType() {
        F.expectRejection(
            F.replacing("code: switch, type: bool", with: "code: switch, type: boolean"),
            keyPath: "data_points[0].type", reason: "unknown DP type 'boolean'; expected one of: raw, bool, value")
    }

    @Test("a range with min above max is rejected at max")
    func invertedRange() {
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 300, max: 255"),
            keyPath: "data_points[3].max", reason: "max 255 is below min 300")
    }

    @Test("a step of zero or less is rejected", arguments: [0, -5])
    func nonPositiveStep(step: Int) {
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 0, max: 255, step: \(step)"),
            keyPath: "data_points[3].step", reason: "step must be at least 1")
    }

    @Test("a scale outside 0...9 is rejected", arguments: [-1, 10])
    func scaleOutOfRange(scale: Int) {
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 0, max: 255, scale: \(scale)"),
            keyPath: "data_points[3].scale", reason: "scale \(scale) is outside 0...9")
    }

    @Test("an enum with an empty value list is rejected")
    func enumWithoutValues() {
        F.expectRejection(
            F.replacing("values: [small, large]", with: "values: []"),
            keyPath: "data_points[2].values", reason: "needs at least one value")
    }

    @Test("an enum listing a value twice is rejected")
    func enumDuplicateValue() {
        F.expectRejection(
            F.replacing("values: [small, large]", with: "values: [small, large, small]"),
            keyPath: "data_points[2].values[2]",
            reason: "duplicate enum value 'small' (also at data_points[2].values[0])")
    }

    @Test("a bool default that is not true or false is rejected")
    func defaultWrongType() {
        F.expectRejection(
            F.replacing("code: switch, type: bool }", with: "code: switch, type: bool, default: yes }"),
            keyPath: "data_points[0].default", reason: "expected true or false, found 'yes'")
    }

    @Test("a value default outside the range is rejected")
    func defaultOutsideRange() {
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 0, max: 255, default: 256"),
            keyPath: "data_points[3].default", reason: "default 256 is outside 0...255")
    }

    @Test("an enum default that is not in the value list is rejected")
    func enumDefaultNotListed() {
        F.expectRejection(
            F.replacing("values: [small, large]", with: "values: [small, large], default: medium"),
            keyPath: "data_points[2].default", reason: "default 'medium' is not one of the values: small, large")
    }

    @Test("a colour default that does not fit its format is rejected")
    func colourDefaultWrongLength() {
        F.expectRejection(
            F.replacing("format: hsv16", with: "format: hsv16, default: 00ff00ff"),
            keyPath: "data_points[4].default", reason: "a hsv16 default is 12 hex digits")
    }

    @Test("enum labels load in the values' order, and labels that do not fit are rejected with the reason")
    func enumLabels() throws {
        let labelled = try ProfileLoader.parse(
            yaml: F.replacing("values: [small, large]", with: "values: [small, large], labels: [Fine mist, 'Large +']"),
            source: "fixture")
        let spec = try #require(labelled.dataPoints.first { $0.values == ["small", "large"] })
        #expect(spec.displayedValues.map(\.label) == ["Fine mist", "Large +"])
        #expect(spec.displayedValues.map(\.value) == ["small", "large"])
        F.expectRejection(
            F.replacing("values: [small, large]", with: "values: [small, large], labels: [one]"),
            keyPath: "data_points[2].labels", reason: "list one label per value: 2 values, 1 labels")
        F.expectRejection(
            F.replacing("values: [small, large]", with: #"values: [small, large], labels: [ok, "it's"]"#),
            keyPath: "data_points[2].labels[1]", reason: "label 'it's' must be 1-32 letters")
        F.expectRejection(
            F.replacing("values: [small, large]", with: "values: [small, large], labels: [same, same]"),
            keyPath: "data_points[2].labels[1]", reason: "duplicate label 'same'")
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 0, max: 255, labels: [a]"),
            keyPath: "data_points[3].labels", reason: "'labels' does not apply to a value DP")
    }

    @Test("a colour format on a value DP is rejected")
    func formatOnNonString() {
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 0, max: 255, format: hsv16"),
            keyPath: "data_points[3].format", reason: "'format' does not apply to a value DP")
    }

    @Test("an unknown colour format is rejected")
    func unknownFormat() {
        F.expectRejection(
            F.replacing("format: hsv16", with: "format: hsv8"),
            keyPath: "data_points[4].format", reason: "unknown colour format 'hsv8'; expected one of: hsv16, rgbhsv")
    }

    @Test("transports must not be empty")
    func emptyTransports() {
        F.expectRejection(
            F.replacing("transports: [mqtt]", with: "transports: []"), keyPath: "transports",
            reason: "at least one transport")
    }

    @Test("a transport other than mqtt or ble is rejected")
    func unknownTransport() {
        F.expectRejection(
            F.replacing("transports: [mqtt]", with: "transports: [mqtt, zigbee]"),
            keyPath: "transports[1]", reason: "unknown transport 'zigbee'")
    }

    @Test("a category other than dj or xxj is rejected")
    func unknownCategory() {
        F.expectRejection(
            F.replacing("category: xxj", with: "category: jsq"), keyPath: "category",
            reason: "unknown category 'jsq'; expected one of: dj, xxj")
    }

    @Test("frame_gap_ms outside 0...60000 is rejected", arguments: [-1, 60_001])
    func frameGapOutOfRange(gap: Int) {
        F.expectRejection(
            F.replacing("frame_gap_ms: 250", with: "frame_gap_ms: \(gap)"),
            keyPath: "frame_gap_ms", reason: "frame gap \(gap) is outside 0...60000")
    }

    @Test("an empty or non-ASCII product id is rejected", arguments: ["\"\"", "schlüssel", "\"a b\""])
    func badProductID(id: String) {
        F.expectRejection(
            F.replacing("product_ids: [testpid1]", with: "product_ids: [testpid1, \(id)]"),
            keyPath: "product_ids[1]", reason: "printable ASCII")
    }

    @Test("a profile id with upper-case letters or a leading dash is rejected", arguments: ["Test", "-test", "a_b"])
    func badProfileID(id: String) {
        F.expectRejection(
            F.replacing("id: test-diffuser", with: "id: \(id)"), keyPath: "id",
            reason: "must be 1-64 lower-case letters")
    }
}
