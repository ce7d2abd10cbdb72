import Testing
import TuyaCore

@Suite("DataPointMapper writes")
struct MappingWritesTests {
    let bulb = DataPointMapper(profile: TestProfiles.rgbcctBulb)
    let white = DataPointMapper(profile: TestProfiles.whiteBulb)
    let diffuser = DataPointMapper(profile: TestProfiles.modernDiffuser(colour: .rgbhsv))
    let legacy = DataPointMapper(profile: TestProfiles.legacyDiffuser)
    let id = TestProfiles.id
    let c = TestProfiles.colour

    func light(_ mapper: DataPointMapper, _ command: LightCommand) throws(MappingError) -> DataPoints {
        try mapper.writes(for: .light(command))
    }

    func diffuse(_ mapper: DataPointMapper, _ command: DiffuserCommand) throws(MappingError) -> DataPoints {
        try mapper.writes(for: .diffuser(command))
    }

    // MARK: RGB+CCT bulb

    @Test("power alone writes only switch_led")
    func power() throws {
        #expect(try light(bulb, LightCommand(power: true)) == [id(20): .bool(true)])
        #expect(try light(bulb, LightCommand(power: false)) == [id(20): .bool(false)])
    }

    @Test("an empty command writes nothing")
    func empty() throws {
        #expect(try light(bulb, LightCommand()).isEmpty)
        #expect(try diffuse(diffuser, DiffuserCommand()).isEmpty)
    }

    @Test("brightness maps onto 10–1000 and selects white mode")
    func brightness() throws {
        #expect(try light(bulb, LightCommand(brightness: 0)) == [id(22): .value(10), id(21): .enumeration("white")])
        #expect(
            try light(bulb, LightCommand(brightness: 100)) == [id(22): .value(1000), id(21): .enumeration("white")])
    }

    @Test(
        "brightness alone on a bulb showing a colour dims that colour and keeps colour mode; in white it stays white"
    )
    func brightnessFollowsTheCurrentMode() throws {
        // Reported: colour mode, hue 240, 100 % saturation, value 100 % (hsv16 0x00F0 03E8 03E8).
        let inColour: DataPoints = [id(21): .enumeration("colour"), id(24): .string("00F003E803E8")]
        let dimmed = try bulb.writes(for: .light(LightCommand(brightness: 40)), current: inColour)
        #expect(dimmed[id(22)] == nil, "the white channel is left alone")
        let state = try #require(
            { () -> LightState? in
                guard case .light(let state) = bulb.state(from: inColour.merging(dimmed) { $1 }) else { return nil }
                return state
            }())
        #expect(state.mode == "colour" && state.colour == c(240, 100, 40) && state.brightness == 40)
        // Zero is 1 %: a colour at value 0 is black, which bulbs show as off or refuse.
        let floor = try bulb.writes(for: .light(LightCommand(brightness: 0)), current: inColour)
        #expect(floor[id(24)] == .string("00f003e8000a"))
        // In white mode, or with nothing reported, brightness is the white channel, as before.
        let inWhite: DataPoints = [id(21): .enumeration("white"), id(24): .string("00F003E803E8")]
        #expect(
            try bulb.writes(for: .light(LightCommand(brightness: 0)), current: inWhite)
                == [id(22): .value(10), id(21): .enumeration("white")])
        // Brightness with colour temperature is white whatever the bulb showed.
        #expect(
            try bulb.writes(for: .light(LightCommand(brightness: 0, colorTemperature: 2700)), current: inColour)
                == [id(22): .value(10), id(23): .value(0), id(21): .enumeration("white")])
        // A white-only bulb has no colour to dim.
        #expect(
            try white.writes(for: .light(LightCommand(brightness: 100)), current: inColour)
                == (try white.writes(for: .light(LightCommand(brightness: 100)))))
        // Out of range is still refused naming the field.
        #expect(throws: MappingError.self) {
            try bulb.writes(for: .light(LightCommand(brightness: 101)), current: inColour)
        }
    }

    @Test("brightness outside 0...100 is rejected naming the field, range and profile", arguments: [150, 101, -1])
    func brightnessOutOfRange(value: Int) {
        #expect(
            throws: MappingError.outOfRange(
                field: "brightness", value: value, valid: 0...100, profile: "rgbcct-bulb-v2")
        ) {
            try light(bulb, LightCommand(brightness: value))
        }
        let message = MappingError.outOfRange(
            field: "brightness", value: value, valid: 0...100, profile: "rgbcct-bulb-v2"
        ).description
        #expect(message.contains("rgbcct-bulb-v2") && message.contains("brightness") && message.contains("0...100"))
    }

    @Test("colour temperature maps kelvin bounds onto 0–1000, warmest at 0, and selects white mode")
    func colourTemperature() throws {
        #expect(
            try light(bulb, LightCommand(colorTemperature: 2700)) == [id(23): .value(0), id(21): .enumeration("white")])
        #expect(
            try light(bulb, LightCommand(colorTemperature: 6500)) == [
                id(23): .value(1000), id(21): .enumeration("white"),
            ])
    }

    @Test("colour temperature outside the binding's kelvin bounds is rejected", arguments: [2699, 6501, 0])
    func kelvinOutOfRange(kelvin: Int) {
        #expect(
            throws: MappingError.outOfRange(
                field: "colorTemperature", value: kelvin, valid: 2700...6500, profile: "rgbcct-bulb-v2")
        ) {
            try light(bulb, LightCommand(colorTemperature: kelvin))
        }
    }

    @Test("messages name fields as the user types them (color_temp, mist_mode), not as the code does")
    func messagesUseAPIFieldNames() {
        let kelvin = MappingError.outOfRange(field: "colorTemperature", value: 2000, valid: 2700...6500, profile: "p")
        #expect(kelvin.description == "color_temp 2000 is out of range for profile 'p'; use 2700...6500")
        let mode = MappingError.unknownLabel(
            field: "mistMode", label: "medium", valid: ["small", "large"], profile: "d")
        #expect(mode.description.hasPrefix("mist_mode 'medium' is not known"))
        let both = MappingError.conflictingFields(["colorTemperature", "colour"], profile: "p")
        #expect(both.description.hasPrefix("fields color_temp and color conflict"))
    }

    @Test("colour writes hsv16 hex and selects colour mode")
    func colour() throws {
        #expect(
            try light(bulb, LightCommand(colour: c(240, 100, 100)))
                == [id(24): .string("00f003e803e8"), id(21): .enumeration("colour")])
    }

    @Test("brightness with colour is the colour's value; the white channel is left alone")
    func brightnessWithColour() throws {
        #expect(
            try light(bulb, LightCommand(brightness: 50, colour: c(0, 100, 80)))
                == [id(24): .string("000003e801f4"), id(21): .enumeration("colour")])
    }

    @Test("colour with colour temperature, or scene with colour, is a conflict")
    func conflicts() {
        #expect(throws: MappingError.conflictingFields(["colour", "colorTemperature"], profile: "rgbcct-bulb-v2")) {
            try light(bulb, LightCommand(colorTemperature: 3000, colour: c(0, 100, 100)))
        }
        #expect(throws: MappingError.conflictingFields(["scene", "colour"], profile: "rgbcct-bulb-v2")) {
            try light(bulb, LightCommand(colour: c(0, 100, 100), scene: "night"))
        }
    }

    @Test("a named scene writes its value and selects scene mode")
    func scene() throws {
        #expect(
            try light(bulb, LightCommand(scene: "night"))
                == [id(25): .string("000e0d0000000000000000c80000"), id(21): .enumeration("scene")])
    }

    @Test("an unknown scene is rejected listing the profile's scenes")
    func unknownScene() {
        #expect(
            throws: MappingError.unknownLabel(
                field: "scene", label: "party", valid: ["night", "read"], profile: "rgbcct-bulb-v2")
        ) {
            try light(bulb, LightCommand(scene: "party"))
        }
    }

    @Test("countdown writes seconds and rejects values outside 0–86400")
    func countdown() throws {
        #expect(try light(bulb, LightCommand(countdown: 3600)) == [id(26): .value(3600)])
        #expect(try light(bulb, LightCommand(countdown: 0)) == [id(26): .value(0)])
        #expect(
            throws: MappingError.outOfRange(
                field: "countdown", value: 86401, valid: 0...86400, profile: "rgbcct-bulb-v2")
        ) {
            try light(bulb, LightCommand(countdown: 86401))
        }
        #expect(throws: MappingError.self) { try light(bulb, LightCommand(countdown: Int.min)) }
    }

    @Test("a diffuser command for a light profile is rejected")
    func wrongKind() {
        #expect(throws: MappingError.wrongDeviceKind(command: "diffuser", category: .light, profile: "rgbcct-bulb-v2"))
        {
            try diffuse(bulb, DiffuserCommand(power: true))
        }
        #expect(throws: MappingError.wrongDeviceKind(command: "light", category: .diffuser, profile: "diffuser-legacy"))
        {
            try light(legacy, LightCommand(power: true))
        }
    }

    // MARK: Dimmable white bulb

    @Test("the white bulb maps brightness onto 25–255 and has no mode DP to write")
    func whiteBrightness() throws {
        #expect(try light(white, LightCommand(brightness: 0)) == [id(2): .value(25)])
        #expect(try light(white, LightCommand(brightness: 1)) == [id(2): .value(27)])
        #expect(try light(white, LightCommand(brightness: 100)) == [id(2): .value(255)])
        #expect(
            try light(white, LightCommand(power: true, colorTemperature: 6500)) == [
                id(1): .bool(true), id(3): .value(255),
            ])
    }

    @Test("fields for capabilities the white bulb lacks are rejected naming capability and profile")
    func whiteUnsupported() {
        #expect(throws: MappingError.unsupported(field: "colour", capability: .colour, profile: "white-bulb")) {
            try light(white, LightCommand(colour: c(0, 100, 100)))
        }
        #expect(throws: MappingError.unsupported(field: "scene", capability: .scene, profile: "white-bulb")) {
            try light(white, LightCommand(scene: "night"))
        }
        #expect(throws: MappingError.unsupported(field: "countdown", capability: .countdown, profile: "white-bulb")) {
            try light(white, LightCommand(countdown: 10))
        }
        let message = MappingError.unsupported(field: "colour", capability: .colour, profile: "white-bulb").description
        #expect(message.contains("white-bulb") && message.contains("colour"))
    }

    // MARK: Diffusers

    @Test("each modern diffuser field writes its own DP")
    func diffuserFields() throws {
        #expect(try diffuse(diffuser, DiffuserCommand(power: true)) == [id(1): .bool(true)])
        #expect(try diffuse(diffuser, DiffuserCommand(mist: false)) == [id(2): .bool(false)])
        #expect(try diffuse(diffuser, DiffuserCommand(mistMode: "small")) == [id(3): .enumeration("small")])
        #expect(try diffuse(diffuser, DiffuserCommand(timer: "3")) == [id(4): .enumeration("3")])
        #expect(try diffuse(diffuser, DiffuserCommand(ledPower: true)) == [id(7): .bool(true)])
        #expect(try diffuse(diffuser, DiffuserCommand(ledBrightness: 100)) == [id(8): .value(255)])
        #expect(try diffuse(diffuser, DiffuserCommand(ledBrightness: 50)) == [id(8): .value(128)])
    }

    @Test("the diffuser LED colour follows the profile's layout and selects colour mode")
    func diffuserColour() throws {
        #expect(
            try diffuse(diffuser, DiffuserCommand(ledColour: c(0, 100, 100)))
                == [id(10): .string("ff00000000ffff"), id(9): .enumeration("colour")])
        let hsv = DataPointMapper(profile: TestProfiles.modernDiffuser(colour: .hsv16))
        #expect(
            try diffuse(hsv, DiffuserCommand(ledColour: c(0, 100, 100)))
                == [id(10): .string("000003e803e8"), id(9): .enumeration("colour")])
    }

    @Test("unknown mist modes and timers are rejected listing the valid labels")
    func diffuserLabels() {
        #expect(
            throws: MappingError.unknownLabel(
                field: "mistMode", label: "huge", valid: ["large", "small", "interval"], profile: "diffuser-m-rgbhsv")
        ) {
            try diffuse(diffuser, DiffuserCommand(mistMode: "huge"))
        }
        #expect(
            throws: MappingError.unknownLabel(
                field: "timer", label: "2", valid: ["cancel", "1", "3", "6"], profile: "diffuser-m-rgbhsv")
        ) {
            try diffuse(diffuser, DiffuserCommand(timer: "2"))
        }
        #expect(
            throws: MappingError.outOfRange(
                field: "ledBrightness", value: 101, valid: 0...100, profile: "diffuser-m-rgbhsv")
        ) {
            try diffuse(diffuser, DiffuserCommand(ledBrightness: 101))
        }
    }

    @Test("mist on a diffuser without a spray switch drives the master switch")
    func legacyMist() throws {
        #expect(try diffuse(legacy, DiffuserCommand(mist: true)) == [id(1): .bool(true)])
        #expect(try diffuse(legacy, DiffuserCommand(power: false, mist: false)) == [id(1): .bool(false)])
    }

    @Test("power and mist asking opposite things of one switch conflict")
    func legacyConflict() {
        #expect(throws: MappingError.conflictingFields(["power", "mist"], profile: "diffuser-legacy")) {
            try diffuse(legacy, DiffuserCommand(power: true, mist: false))
        }
    }

    @Test("fields the legacy diffuser lacks are rejected")
    func legacyUnsupported() {
        #expect(throws: MappingError.unsupported(field: "mistMode", capability: .mistMode, profile: "diffuser-legacy"))
        {
            try diffuse(legacy, DiffuserCommand(mistMode: "small"))
        }
        #expect(
            throws: MappingError.unsupported(field: "ledColour", capability: .ledColour, profile: "diffuser-legacy")
        ) {
            try diffuse(legacy, DiffuserCommand(ledColour: c(0, 0, 0)))
        }
    }

    // MARK: Profile shapes

    @Test("a capability bound to a read-only DP is never written")
    func readOnly() {
        var profile = TestProfiles.rgbcctBulb
        profile.dataPoints = profile.dataPoints.map { spec in
            var spec = spec
            if spec.id == id(22) { spec.access = .readOnly }
            return spec
        }
        #expect(
            throws: MappingError.readOnly(
                field: "brightness", capability: .brightness, dataPoint: id(22), profile: "rgbcct-bulb-v2")
        ) {
            try light(DataPointMapper(profile: profile), LightCommand(brightness: 10))
        }
    }

    @Test("a read-only mode DP is skipped instead of written")
    func readOnlyMode() throws {
        var profile = TestProfiles.rgbcctBulb
        profile.dataPoints = profile.dataPoints.map { spec in
            var spec = spec
            if spec.id == id(21) { spec.access = .readOnly }
            return spec
        }
        #expect(
            try light(DataPointMapper(profile: profile), LightCommand(colour: c(0, 0, 0))) == [
                id(24): .string("000000000000")
            ])
    }

    @Test("a binding to a DP the profile does not define is reported as a profile problem")
    func danglingBinding() {
        var profile = TestProfiles.whiteBulb
        profile.capabilities[.countdown] = CapabilityBinding(dataPoint: id(7))
        #expect {
            try light(DataPointMapper(profile: profile), LightCommand(countdown: 5))
        } throws: { error in
            guard case .profileIncomplete(.countdown, _, "white-bulb") = error as? MappingError else { return false }
            return true
        }
    }

    @Test("a legacy scene selected through work_mode writes the mode DP once")
    func legacyScene() throws {
        let profile = DeviceProfile(
            id: "bulb-v1", name: "v1 bulb", category: .light, productIDs: [], transports: [.mqtt],
            dataPoints: [
                DataPointSpec(
                    id: id(2), code: "work_mode", type: .enumeration, values: ["white", "colour", "scene", "scene_1"])
            ],
            capabilities: [
                .workMode: CapabilityBinding(dataPoint: id(2)), .scene: CapabilityBinding(dataPoint: id(2)),
            ],
            scenes: [NamedScene(name: "relax", value: .enumeration("scene_1"))]
        )
        #expect(
            try light(DataPointMapper(profile: profile), LightCommand(scene: "relax")) == [
                id(2): .enumeration("scene_1")
            ])
    }
}
