import TuyaCore

/// A device's typed state as the JSON published on `youll/<device>` (retained), in the
/// same field names and units `/set` takes (see `DeviceSetPayload`).
///
/// Built straight as a `JSONValue`, not through a `Codable` type and `BridgeJSON.value`
/// like the other bridge payloads: it is built for every state change and every command
/// answer (the hot path), and `JSONValueEncoder` builds a tree of reference-counted nodes
/// and then copies it into this same dictionary, so it can only be slower.
public enum DeviceStatePayload {
    public static func json(_ state: DeviceState) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        switch state {
        case .light(let light):
            // Always there, `null` until known: Home Assistant's JSON light reads `state` unguarded.
            fields["state"] = onOff(light.power) ?? .null
            fields["brightness"] = integer(light.brightness)
            fields["color_temp"] = integer(light.colorTemperature)
            // `h`/`s` as well: Home Assistant's JSON-schema light reads those names.
            fields["color"] = colour(light.colour, shortNames: true)
            // `color_mode` is Home Assistant's (`hs` or `color_temp`, only ones the light has);
            // `work_mode` is the bulb's own (`white`, `colour`, `scene`, `music`).
            fields["color_mode"] = colorMode(workMode: light.mode, light).map(JSONValue.string)
            fields["work_mode"] = light.mode.map(JSONValue.string)
            fields["scene"] = light.scene.map(JSONValue.string)
            // The running effect: the scene while the bulb is in its scene mode, else `null`
            // (the scene DP keeps its last value after the bulb leaves the scene).
            if light.mode == nil || light.mode == "scene" {
                fields["effect"] = light.scene.map(JSONValue.string)
            } else {
                fields["effect"] = .null
            }
            fields["countdown"] = integer(light.countdown)
        case .diffuser(let diffuser):
            fields["state"] = onOff(diffuser.power)
            fields["mist"] = onOff(diffuser.mist)
            fields["mist_mode"] = diffuser.mistMode.map(JSONValue.string)
            fields["led"] = onOff(diffuser.ledPower)
            fields["led_mode"] = diffuser.ledMode.map(JSONValue.string)
            fields["led_brightness"] = integer(diffuser.ledBrightness)
            fields["led_color"] = colour(diffuser.ledColour)
            fields["timer"] = diffuser.timer.map(JSONValue.string)
            fields["minutes_left"] = integer(diffuser.minutesLeft)
            fields["faults"] = .array(diffuser.faults.map(JSONValue.string))
            fields["problem"] = .bool(!diffuser.faults.isEmpty)
        }
        return .object(fields.compactMapValues { $0 })
    }

    /// The Home Assistant colour mode for a bulb's work mode: white is `color_temp`, colour
    /// is `hs`, and a scene or music (colour effects) shows as `hs`, each only when the
    /// light reports that value; nil otherwise, since Home Assistant refuses a mode the
    /// light's config does not list. A bulb without a work mode is in the one mode it
    /// reports (Home Assistant reads `color_temp` only alongside a `color_mode`).
    static func colorMode(workMode: String?, _ light: LightState) -> String? {
        let hs = light.colour != nil ? "hs" : nil
        let temperature = light.colorTemperature != nil ? "color_temp" : nil
        switch workMode {
        case "white": return temperature
        case "colour": return hs
        case nil: return temperature ?? hs
        default: return hs ?? temperature
        }
    }

    private static func onOff(_ value: Bool?) -> JSONValue? {
        value.map { .string($0 ? "ON" : "OFF") }
    }

    private static func integer(_ value: Int?) -> JSONValue? {
        value.map { .integer(Int64($0)) }
    }

    private static func colour(_ value: HSVColour?, shortNames: Bool = false) -> JSONValue? {
        value.map {
            var fields: [String: JSONValue] = [
                "hue": .integer(Int64($0.hue)), "saturation": .integer(Int64($0.saturation)),
                "brightness": .integer(Int64($0.value)),
            ]
            if shortNames {
                fields["h"] = .integer(Int64($0.hue))
                fields["s"] = .integer(Int64($0.saturation))
            }
            return .object(fields)
        }
    }
}
