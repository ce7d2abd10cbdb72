import Foundation
import TuyaCore

/// The device states a session captured at its start, by device id: what restore cues
/// put back, also after a restart.
struct StoredCapturedStates: Codable, Hashable {
    var states: [DeviceID: DeviceState]

    init(_ states: [DeviceID: DeviceState]) {
        self.states = states
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decodeNil() {
            states = [:]
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        states = [:]
        // Every key first: a key that is not a device id is reported as such, not as a bad state.
        for key in container.allKeys where DeviceID(key.stringValue) == nil {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath,
                    debugDescription: "has \"\(key.stringValue.prefix(64))\", which is not a device id"))
        }
        for key in container.allKeys {
            guard let id = DeviceID(key.stringValue) else { continue }
            states[id] = try container.decode(StoredDeviceState.self, forKey: key).state
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (id, state) in states {
            try container.encode(StoredDeviceState(state), forKey: Key(stringValue: id.rawValue))
        }
    }
}

/// One captured state: `{"kind":"light", "power", "mode", "brightness", "color_temp",
/// "colour":[h,s,v], "scene", "countdown"}` or `{"kind":"diffuser", "power", "mist",
/// "mist_mode", "led_power", "led_mode", "led_brightness", "led_colour", "timer",
/// "minutes_left", "faults"}`.
struct StoredDeviceState: Codable, Hashable {
    enum Kind: String, Codable {
        case light, diffuser
    }

    var kind: Kind
    var power: Bool?
    var mode: String?
    var brightness: Int?
    var colorTemperature: Int?
    var colour: StoredColour?
    var scene: String?
    var countdown: Int?
    var mist: Bool?
    var mistMode: String?
    var ledPower: Bool?
    var ledMode: String?
    var ledBrightness: Int?
    var ledColour: StoredColour?
    var timer: String?
    var minutesLeft: Int?
    var faults: [String]?

    enum CodingKeys: String, CodingKey {
        case kind, power, mode, brightness, colour, scene, countdown, mist, timer, faults
        case colorTemperature = "color_temp"
        case mistMode = "mist_mode"
        case ledPower = "led_power"
        case ledMode = "led_mode"
        case ledBrightness = "led_brightness"
        case ledColour = "led_colour"
        case minutesLeft = "minutes_left"
    }

    init(_ state: DeviceState) {
        switch state {
        case .light(let light):
            kind = .light
            power = light.power
            mode = light.mode
            brightness = light.brightness
            colorTemperature = light.colorTemperature
            colour = light.colour.map(StoredColour.init)
            scene = light.scene
            countdown = light.countdown
        case .diffuser(let diffuser):
            kind = .diffuser
            power = diffuser.power
            mist = diffuser.mist
            mistMode = diffuser.mistMode
            ledPower = diffuser.ledPower
            ledMode = diffuser.ledMode
            ledBrightness = diffuser.ledBrightness
            ledColour = diffuser.ledColour.map(StoredColour.init)
            timer = diffuser.timer
            minutesLeft = diffuser.minutesLeft
            faults = diffuser.faults
        }
    }

    var state: DeviceState {
        switch kind {
        case .light:
            .light(
                LightState(
                    power: power, mode: mode, brightness: brightness, colorTemperature: colorTemperature,
                    colour: colour?.colour, scene: scene, countdown: countdown))
        case .diffuser:
            .diffuser(
                DiffuserState(
                    power: power, mist: mist, mistMode: mistMode, ledPower: ledPower, ledMode: ledMode,
                    ledBrightness: ledBrightness, ledColour: ledColour?.colour, timer: timer,
                    minutesLeft: minutesLeft, faults: faults ?? []))
        }
    }
}

/// `[hue, saturation, value]`, each in its range.
struct StoredColour: Codable, Hashable {
    var colour: HSVColour

    init(_ colour: HSVColour) {
        self.colour = colour
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let parts = try? container.decode([Int].self), parts.count == 3,
            let colour = HSVColour(hue: parts[0], saturation: parts[1], value: parts[2])
        else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "is not [hue, saturation, value]")
        }
        self.colour = colour
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode([colour.hue, colour.saturation, colour.value])
    }
}
