import Gateway
import Testing
import TuyaCore
import TuyaWire

/// Pure: `/set` payloads to typed commands, typed state to the published JSON.
@Suite("bridge payloads")
struct BridgePayloadTests {
    private func parse(_ text: String, _ category: DeviceCategory = .light, current: DeviceState? = nil) throws
        -> DeviceCommand
    {
        try DeviceSetPayload.parse(Array(text.utf8), category: category, current: current)
    }

    private func error(_ text: String, _ category: DeviceCategory = .light) -> BridgePayloadError? {
        do {
            _ = try DeviceSetPayload.parse(Array(text.utf8), category: category)
            return nil
        } catch {
            return error
        }
    }

    /// An unknown field is named back to the sender, logged and stored as an event: a key of
    /// 60 KB (the payload limit is 64 KiB) must not become all three.
    @Test("an unknown field with a huge or control-character name is named back shortened and printable")
    func hugeUnknownField() {
        let key = String(repeating: "k", count: 60_000)
        let huge = error(#"{"\#(key)":1}"#)
        #expect(huge?.field.count == BridgePayloadError.maximumFieldLength + 1, "64 characters and an ellipsis")
        #expect((huge?.description.count ?? .max) < 1_000)
        let escaped = error(#"{"a\u001b[2J":1}"#)
        #expect(escaped?.field == #"a\u{1b}[2J"#)
    }

    @Test("the issue's example sets power, brightness and colour temperature in one command")
    func issueExample() throws {
        let command = try parse(#"{"state":"ON","brightness":40,"color_temp":2700}"#)
        #expect(command == .light(LightCommand(power: true, brightness: 40, colorTemperature: 2700)))
    }

    @Test("a misspelt field gets a did-you-mean and the settable list; a field the device reports says it is read-only")
    func fieldWording() {
        let typo = error(#"{"brightnes":40}"#)
        #expect(typo?.field == "brightnes")
        #expect(typo?.reason.hasPrefix("unknown field for a light; did you mean 'brightness'?") == true, "\(typo!)")
        #expect(typo?.reason.contains("settable: ") == true)
        let minutes = error(#"{"minutes_left":5}"#, .diffuser)
        #expect(minutes?.description == "minutes_left: read-only: the device counts it down; set timer instead")
        let mode = error(#"{"color_mode":"hs"}"#)
        #expect(mode?.reason.hasPrefix("read-only: ") == true)
        let nonsense = error(#"{"zzzzzzzz":1}"#)
        #expect(nonsense?.reason.contains("did you mean") == false)
    }

    @Test("zigbee2mqtt's mireds are converted to kelvin")
    func mireds() throws {
        #expect(try parse(#"{"color_temp":370}"#) == .light(LightCommand(colorTemperature: 2703)))
    }

    @Test("a colour takes hue and saturation, long or short names, with optional brightness")
    func colour() throws {
        #expect(
            try parse(#"{"color":{"hue":30,"saturation":80}}"#)
                == .light(LightCommand(colour: HSVColour(hue: 30, saturation: 80, value: 100))))
        #expect(
            try parse(#"{"color":{"h":200,"s":50,"v":20}}"#)
                == .light(LightCommand(colour: HSVColour(hue: 200, saturation: 50, value: 20))))
    }

    @Test(
        "a colour by name, #rrggbb, r,g,b, {hex}, {r,g,b} or {rgb}, as zigbee2mqtt takes it, gives hue and saturation")
    func colourForms() throws {
        let orange = LightCommand(colour: HSVColour(hue: 39, saturation: 100, value: 100))
        for payload in [
            ##"{"color":"orange"}"##, ##"{"color":"Orange"}"##, ##"{"color":"#ffa500"}"##, ##"{"color":"#FFA500"}"##,
            ##"{"color":"255,165,0"}"##, ##"{"color":{"hex":"#ffa500"}}"##, ##"{"color":{"hex":"ffa500"}}"##,
            #"{"color":{"r":255,"g":165,"b":0}}"#, #"{"color":{"rgb":"255, 165, 0"}}"#,
        ] {
            #expect(try parse(payload) == .light(orange), "\(payload)")
        }
        #expect(
            try parse(#"{"color":"sky blue"}"#)
                == .light(LightCommand(colour: HSVColour(hue: 197, saturation: 43, value: 100))))
        #expect(
            try parse(##"{"color":{"hex":"#f00","brightness":30}}"##)
                == .light(LightCommand(colour: HSVColour(hue: 0, saturation: 100, value: 30))))
        let dim = DeviceState.light(LightState(power: true, brightness: 25))
        #expect(
            try parse(##"{"color":"#800000"}"##, current: dim)
                == .light(LightCommand(colour: HSVColour(hue: 0, saturation: 100, value: 25))))
        let diffuser = try parse(#"{"led_color":"blue"}"#, .diffuser)
        #expect(diffuser == .diffuser(DiffuserCommand(ledColour: HSVColour(hue: 240, saturation: 100, value: 100))))
        #expect(error(#"{"color":"reddish"}"#)?.reason.contains("did you mean red") == true)
    }

    @Test("a colour without a brightness keeps the light's current brightness; one with a brightness uses it")
    func colourKeepsBrightness() throws {
        let dim = DeviceState.light(LightState(power: true, mode: "colour", brightness: 30))
        #expect(
            try parse(#"{"color":{"h":120,"s":50}}"#, current: dim)
                == .light(LightCommand(colour: HSVColour(hue: 120, saturation: 50, value: 30))))
        #expect(
            try parse(#"{"color":{"h":120,"s":50,"brightness":70}}"#, current: dim)
                == .light(LightCommand(colour: HSVColour(hue: 120, saturation: 50, value: 70))))
        // Nothing known: full brightness, as before.
        #expect(
            try parse(#"{"color":{"h":120,"s":50}}"#)
                == .light(LightCommand(colour: HSVColour(hue: 120, saturation: 50, value: 100))))
    }

    @Test("Home Assistant's transition is accepted and ignored (Tuya bulbs have none); flash is refused")
    func transition() throws {
        #expect(try parse(#"{"state":"ON","transition":2.5}"#) == .light(LightCommand(power: true)))
        #expect(error(#"{"state":"ON","transition":-1}"#)?.field == "transition")
        #expect(error(#"{"state":"ON","flash":"short"}"#)?.field == "flash")
    }

    @Test("TOGGLE flips the current power and is refused while the state is unknown")
    func toggle() throws {
        let on = DeviceState.light(LightState(power: true))
        #expect(try parse(#"{"state":"toggle"}"#, current: on) == .light(LightCommand(power: false)))
        #expect(error(#"{"state":"TOGGLE"}"#)?.field == "state")
    }

    @Test(
        "the bridge reads the current state only for a TOGGLE or a colour: every other payload parses the same whatever that state is"
    )
    func currentStateOnlyWhenNeeded() throws {
        let lights = [
            #"{"state":"ON"}"#, #"{"state":false,"brightness":40}"#, #"{"color_temp":2700}"#,
            #"{"scene":"night","countdown":60}"#, #"{"effect":"reading","transition":1}"#,
            #"{"state":"toggle"}"#, #"{"state":"Toggle","brightness":10}"#, #"{"color":{"h":120,"s":50}}"#,
            #"{"color":{"h":120,"s":50,"brightness":70}}"#, ##"{"color":"#800000"}"##,
        ]
        let diffusers = [
            #"{"state":"ON","mist":true}"#, #"{"mist_mode":"large","led_brightness":20}"#, #"{"timer":"1"}"#,
            #"{"led":"TOGGLE"}"#, #"{"mist":"toggle"}"#, ##"{"led_color":"#00ff00"}"##,
        ]
        let lightStates: [DeviceState?] = [
            .light(LightState(power: true, mode: "colour", brightness: 30)), .light(LightState(power: false)),
        ]
        let diffuserStates: [DeviceState?] = [
            .diffuser(DiffuserState(power: true, mist: true, ledPower: true)),
            .diffuser(DiffuserState(power: false, mist: false, ledPower: false)),
        ]
        var needing: [String] = []
        for (category, payloads, states) in [
            (DeviceCategory.light, lights, lightStates), (.diffuser, diffusers, diffuserStates),
        ] {
            for text in payloads {
                let object = try #require(try CompactJSON.decode(Array(text.utf8)).objectValue)
                let outcomes = states.map { state in Result { try parse(text, category, current: state) } }
                let differs = outcomes.contains { "\($0)" != "\(outcomes[0])" }
                if DeviceSetPayload.needsCurrentState(object) {
                    needing.append(text)
                } else {
                    #expect(!differs, "\(text) depends on the current state")
                }
            }
        }
        #expect(
            needing == [
                #"{"state":"toggle"}"#, #"{"state":"Toggle","brightness":10}"#, #"{"color":{"h":120,"s":50}}"#,
                #"{"color":{"h":120,"s":50,"brightness":70}}"#, ##"{"color":"#800000"}"##, #"{"led":"TOGGLE"}"#,
                #"{"mist":"toggle"}"#,
            ])
    }

    @Test("a diffuser payload sets mist, mode, LED and timer")
    func diffuser() throws {
        let command = try parse(
            #"{"state":"ON","mist":true,"mist_mode":"large","led":"OFF","led_brightness":20,"timer":"1"}"#, .diffuser)
        #expect(
            command
                == .diffuser(
                    DiffuserCommand(
                        power: true, mist: true, mistMode: "large", ledPower: false, ledBrightness: 20, timer: "1")))
    }

    @Test(
        "bad payloads name the field at fault",
        arguments: [
            ("not json", "payload"),
            ("[1,2]", "payload"),
            ("{}", "payload"),
            (#"{"brigthness":40}"#, "brigthness"),
            (#"{"brightness":140}"#, "brightness"),
            (#"{"brightness":"40"}"#, "brightness"),
            (#"{"brightness":40.5}"#, "brightness"),
            (#"{"state":"MAYBE"}"#, "state"),
            (#"{"color_temp":20}"#, "color_temp"),
            (#"{"color_temp":99999999999}"#, "color_temp"),
            (#"{"color":{"hue":30}}"#, "color"),
            (#"{"color":{"hue":30,"saturation":80,"alpha":1}}"#, "color.alpha"),
            (#"{"color":"reddish"}"#, "color"),
            (##"{"color":"#12345"}"##, "color"),
            (#"{"color":"1,2,256"}"#, "color"),
            (#"{"color":7}"#, "color"),
            (##"{"color":{"hex":"#zzzzzz"}}"##, "color.hex"),
            (#"{"color":{"hex":5}}"#, "color.hex"),
            (#"{"color":{"r":300,"g":0,"b":0}}"#, "color.r"),
            (#"{"color":{"r":1,"g":2}}"#, "color.b"),
            (#"{"color":{"r":-1,"g":2,"b":3}}"#, "color.r"),
            (#"{"color":{"rgb":"1,2"}}"#, "color.rgb"),
            (##"{"color":{"hex":"#ff0000","hue":3}}"##, "color.hue"),
            (#"{"scene":""}"#, "scene"),
            (#"{"mist":"ON"}"#, "mist"),
        ])
    func badPayloads(payload: String, field: String) {
        #expect(error(payload)?.field == field)
    }

    @Test("hostile payloads are refused without a crash")
    func hostile() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(error(deep) != nil)
        #expect(error(String(repeating: "{\"a\":", count: 50_000)) != nil)
        #expect(error("{\"scene\":\"" + String(repeating: "x", count: 10_000) + "\"}")?.field == "scene")
        #expect((try? DeviceSetPayload.parse([0xFF, 0xFE, 0x00], category: .light)) == nil)
    }

    @Test("a light's state is published with the names /set takes")
    func lightState() {
        let json = DeviceStatePayload.json(
            .light(LightState(power: true, mode: "white", brightness: 40, colorTemperature: 2700)))
        #expect(
            json
                == .object([
                    "state": .string("ON"), "brightness": .integer(40), "color_temp": .integer(2700),
                    "color_mode": .string("color_temp"), "work_mode": .string("white"), "effect": .null,
                ]))
    }

    @Test(
        "color_mode is always one Home Assistant accepts for the light: a scene shows as hs, a white-only bulb never as hs"
    )
    func colorModes() throws {
        let colour = try #require(HSVColour(hue: 30, saturation: 80, value: 50))
        func mode(_ state: LightState) -> JSONValue? { DeviceStatePayload.json(.light(state))["color_mode"] }
        #expect(mode(LightState(mode: "colour", colorTemperature: 3000, colour: colour)) == .string("hs"))
        #expect(mode(LightState(mode: "scene", colorTemperature: 3000, colour: colour)) == .string("hs"))
        #expect(mode(LightState(mode: "music", colour: colour)) == .string("hs"))
        // A white bulb in its scene mode has no colour: its scene is shown as colour temperature.
        #expect(mode(LightState(mode: "scene", colorTemperature: 3000)) == .string("color_temp"))
        // Nothing Home Assistant could accept: no color_mode at all (the bulb's own mode stays).
        #expect(mode(LightState(mode: "white", brightness: 40)) == nil)
        #expect(mode(LightState(mode: "colour")) == nil)
        #expect(DeviceStatePayload.json(.light(LightState(mode: "scene")))["work_mode"] == .string("scene"))
        // A bulb with no work mode (a white bulb) is in the one mode it reports: Home
        // Assistant reads color_temp only beside a color_mode.
        #expect(mode(LightState(brightness: 40, colorTemperature: 3000)) == .string("color_temp"))
    }

    @Test("a light's state always carries state (null until known) and an effect only while its scene runs")
    func stateAndEffect() {
        let unknown = DeviceStatePayload.json(.light(LightState(brightness: 40)))
        #expect(unknown["state"] == .null)
        let inScene = DeviceStatePayload.json(.light(LightState(power: true, mode: "scene", scene: "night")))
        #expect(inScene["effect"] == .string("night"))
        // The scene DP keeps its last value after the bulb leaves the scene: no stale effect.
        let leftScene = DeviceStatePayload.json(.light(LightState(power: true, mode: "white", scene: "night")))
        #expect(leftScene["effect"] == .null)
        #expect(leftScene["scene"] == .string("night"))
    }

    @Test("a diffuser's faults are listed and flagged as a problem")
    func diffuserState() {
        let json = DeviceStatePayload.json(
            .diffuser(DiffuserState(power: true, mist: false, minutesLeft: 30, faults: ["water_shortage"])))
        #expect(json["faults"] == .array([.string("water_shortage")]))
        #expect(json["problem"] == .bool(true))
        #expect(json["mist"] == .string("OFF"))
        #expect(json["minutes_left"] == .integer(30))
    }
}
