import Testing
import TuyaCore

@Suite("DataPointMapper state")
struct MappingStateTests {
    let bulb = DataPointMapper(profile: TestProfiles.rgbcctBulb)
    let white = DataPointMapper(profile: TestProfiles.whiteBulb)
    let diffuser = DataPointMapper(profile: TestProfiles.modernDiffuser(colour: .rgbhsv))
    let legacy = DataPointMapper(profile: TestProfiles.legacyDiffuser)
    let id = TestProfiles.id
    let c = TestProfiles.colour

    func lightState(_ mapper: DataPointMapper, _ report: DataPoints) -> LightState? {
        guard case .light(let state) = mapper.state(from: report) else { return nil }
        return state
    }

    func diffuserState(_ mapper: DataPointMapper, _ report: DataPoints) -> DiffuserState? {
        guard case .diffuser(let state) = mapper.state(from: report) else { return nil }
        return state
    }

    @Test("a full bulb report becomes typed state in user units; in colour mode brightness is the colour's value")
    func fullBulbReport() {
        let state = lightState(
            bulb,
            [
                id(20): .bool(true), id(21): .enumeration("colour"), id(22): .value(505), id(23): .value(0),
                id(24): .string("00F003E803E8"), id(25): .string("000E0D0000000000000000C80000"), id(26): .value(60),
            ])
        #expect(
            state
                == LightState(
                    power: true, mode: "colour", brightness: 100, colorTemperature: 2700, colour: c(240, 100, 100),
                    scene: "night", countdown: 60))
    }

    @Test("an empty report leaves every field unset")
    func emptyReport() {
        #expect(lightState(bulb, [:]) == LightState())
        #expect(diffuserState(diffuser, [:]) == DiffuserState())
    }

    @Test("DPs the profile does not know are ignored")
    func unknownDataPoints() {
        #expect(
            lightState(white, [id(1): .bool(true), id(99): .string("x"), id(20): .bool(false)])
                == LightState(power: true))
    }

    @Test("values of the wrong type are ignored, not trusted")
    func wrongTypes() {
        let state = lightState(
            bulb,
            [
                id(20): .value(1), id(21): .bool(true), id(22): .string("500"), id(23): .raw([1]),
                id(24): .value(7), id(26): .bitmap(3),
            ])
        #expect(state == LightState())
    }

    @Test("a malformed colour string blanks the colour and keeps the rest")
    func badColour() {
        #expect(lightState(bulb, [id(24): .string("zz"), id(20): .bool(false)]) == LightState(power: false))
    }

    @Test("a scene value that matches no named scene leaves the scene unset")
    func unnamedScene() {
        #expect(lightState(bulb, [id(25): .string("03aabb")]) == LightState())
    }

    @Test("a reported scene names the profile's scene whatever the case of its hex digits, and only a whole match does")
    func sceneCase() {
        #expect(lightState(bulb, [id(25): .string("000E0D0000000000000000C80000")])?.scene == "night")
        #expect(lightState(bulb, [id(25): .string("000e0d0000000000000000c80000")])?.scene == "night")
        #expect(lightState(bulb, [id(25): .string("000e0d0000000000000000c8000")])?.scene == nil)
        #expect(lightState(bulb, [id(25): .string("000e0d0000000000000000c80000 ")])?.scene == nil)
        #expect(lightState(bulb, [id(25): .string("000é0d0000000000000000c80000")])?.scene == nil)
    }

    @Test("white bulb raw values map back to percent and kelvin")
    func whiteBulb() {
        #expect(
            lightState(white, [id(2): .value(25), id(3): .value(255)])
                == LightState(brightness: 0, colorTemperature: 6500))
        #expect(lightState(white, [id(2): .value(9999)])?.brightness == 100)
    }

    @Test("fault bits become labels, unlabelled bit n becomes bit<n>")
    func faults() {
        #expect(diffuserState(diffuser, [id(11): .bitmap(0b1001)])?.faults == ["water_shortage", "bit3"])
        #expect(diffuserState(diffuser, [id(11): .bitmap(0)])?.faults == [])
        #expect(diffuserState(diffuser, [id(11): .bitmap(0x8000_0000)])?.faults == ["bit31"])
        #expect(diffuserState(diffuser, [id(11): .value(1)])?.faults == ["water_shortage"])
        #expect(diffuserState(diffuser, [id(11): .string("1")])?.faults == [])
    }

    @Test("a modern diffuser report becomes typed state")
    func diffuserReport() {
        let state = diffuserState(
            diffuser,
            [
                id(1): .bool(true), id(2): .bool(false), id(3): .enumeration("small"), id(4): .enumeration("3"),
                id(5): .value(170), id(7): .bool(true), id(8): .value(255), id(9): .enumeration("colour"),
                id(10): .string("ff00000000ffff"),
            ])
        #expect(
            state
                == DiffuserState(
                    power: true, mist: false, mistMode: "small", ledPower: true, ledMode: "colour", ledBrightness: 100,
                    ledColour: c(0, 100, 100), timer: "3", minutesLeft: 170))
    }

    @Test("an enum reported as its BLE index is read through the profile's list (TUYA.md §1.8)")
    func enumIndex() {
        #expect(diffuserState(diffuser, [id(3): .value(1)])?.mistMode == "small")
        #expect(diffuserState(diffuser, [id(3): .value(9)])?.mistMode == nil)
        #expect(diffuserState(diffuser, [id(3): .value(-1)])?.mistMode == nil)
    }

    @Test("the legacy diffuser reports its master switch as both power and mist")
    func legacyMist() {
        #expect(diffuserState(legacy, [id(1): .bool(true)]) == DiffuserState(power: true, mist: true))
    }

    @Test("writes read back as the command's values")
    func roundTrip() throws {
        // With a colour, brightness is the colour's value.
        let command = LightCommand(power: true, brightness: 37, colour: c(123, 45, 67), countdown: 120)
        let writes = try bulb.writes(for: .light(command))
        #expect(
            lightState(bulb, writes)
                == LightState(
                    power: true, mode: "colour", brightness: 37, colour: c(123, 45, 37), countdown: 120))
        let white = try bulb.writes(for: .light(LightCommand(colorTemperature: 4000)))
        #expect(lightState(bulb, white)?.colorTemperature == 4000)
    }

    @Test("validate lists unknown DPs, wrong types, ranges, labels and colours in DP order")
    func validate() {
        let issues = bulb.validate([
            id(99): .bool(true), id(20): .value(1), id(22): .value(5), id(21): .enumeration("disco"),
            id(24): .string("00f0"), id(23): .value(500),
        ])
        #expect(issues.map(\.key) == ["20", "21", "22", "24", "99"])
        #expect(issues.first?.problem == .wrongType(expected: .bool, found: "value"))
        #expect(issues[2].problem == .valueOutOfRange(5, valid: 10...1000))
        #expect(issues.last?.problem == .unknownDataPoint)
    }
}
