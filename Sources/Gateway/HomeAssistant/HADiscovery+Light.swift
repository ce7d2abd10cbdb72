import TuyaCore

extension HADiscovery {
    /// A light is one JSON-schema light: Home Assistant publishes
    /// `{"state":"ON","brightness":40,"color":{"h":30.0,"s":80.0},"color_temp":2700,"effect":"night"}`
    /// on `<base>/<name>/set`, which is the bridge API's own `/set` JSON (`brightness` in
    /// percent, so the scale is 100; `color_temp` in kelvin; `effect` names a profile
    /// scene), and reads `<base>/<name>`, whose `color` carries `h`/`s` and whose `effect`
    /// mirrors `scene` for it.
    func lightComponents(_ profile: DeviceProfile, _ entity: EntityContext) -> [String: JSONValue] {
        var light: [String: JSONValue] = [
            "platform": .string("light"),
            // The device's own name: the light is what the device is.
            "name": .null,
            "unique_id": entity.uniqueID("light"),
            "schema": .string("json"),
            "state_topic": .string(entity.state),
            "command_topic": .string(entity.command),
            // The bridge API refuses fields it does not know; these are not supported.
            "flash": .bool(false),
            "transition": .bool(false),
        ]
        var modes: [String] = []
        if let kelvin = profile.capabilities[.colorTemperature]?.kelvin,
            profile.dataPoint(for: .colorTemperature) != nil
        {
            modes.append("color_temp")
            light["color_temp_kelvin"] = .bool(true)
            light["min_kelvin"] = .integer(Int64(kelvin.lowerBound))
            light["max_kelvin"] = .integer(Int64(kelvin.upperBound))
        }
        if profile.dataPoint(for: .colour) != nil { modes.append("hs") }
        let dimmable = profile.dataPoint(for: .brightness) != nil
        if dimmable {
            light["brightness"] = .bool(true)
            light["brightness_scale"] = .integer(100)
        }
        // Home Assistant allows `brightness` or `onoff` only as the sole mode.
        if modes.isEmpty { modes = [dimmable ? "brightness" : "onoff"] }
        light["supported_color_modes"] = .array(modes.map(JSONValue.string))
        if profile.dataPoint(for: .scene) != nil, !profile.scenes.isEmpty {
            light["effect"] = .bool(true)
            light["effect_list"] = .array(profile.scenes.map { .string($0.name) })
        }
        return ["light": .object(light)]
    }
}
