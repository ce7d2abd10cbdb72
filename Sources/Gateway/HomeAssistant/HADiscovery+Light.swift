import TuyaCore

extension HADiscovery {
    /// A light is one JSON-schema light: Home Assistant publishes
    /// `{"state":"ON","brightness":40,"color":{"h":30.0,"s":80.0},"color_temp":2700,"effect":"night"}`
    /// on `<base>/<name>/set`, which is the bridge API's own `/set` JSON (`brightness` in
    /// percent, so the scale is 100; `color_temp` in kelvin; `effect` names a profile
    /// scene), and reads `<base>/<name>`, whose `color` carries `h`/`s` and whose `effect`
    /// mirrors `scene` for it.
    func lightComponents(_ profile: DeviceProfile, _ entity: EntityContext) -> [String: Component] {
        // The device's own name: the light is what the device is.
        var light = Component(platform: "light", name: nil, uniqueID: entity.uniqueID("light"))
        light.schema = "json"
        light.stateTopic = entity.state
        light.commandTopic = entity.command
        // The bridge API refuses fields it does not know; these are not supported.
        light.flash = false
        light.transition = false
        var modes: [String] = []
        if let kelvin = profile.capabilities[.colorTemperature]?.kelvin,
            profile.dataPoint(for: .colorTemperature) != nil
        {
            modes.append("color_temp")
            light.colorTempKelvin = true
            light.minKelvin = kelvin.lowerBound
            light.maxKelvin = kelvin.upperBound
        }
        if profile.dataPoint(for: .colour) != nil { modes.append("hs") }
        let dimmable = profile.dataPoint(for: .brightness) != nil
        if dimmable {
            light.brightness = true
            light.brightnessScale = 100
        }
        // Home Assistant allows `brightness` or `onoff` only as the sole mode.
        if modes.isEmpty { modes = [dimmable ? "brightness" : "onoff"] }
        light.supportedColorModes = modes
        if profile.dataPoint(for: .scene) != nil, !profile.scenes.isEmpty {
            light.effect = true
            light.effectList = profile.scenes.map(\.name)
        }
        return ["light": light]
    }
}
