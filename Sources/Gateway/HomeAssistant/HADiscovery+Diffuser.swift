import TuyaCore

extension HADiscovery {
    /// A diffuser is several entities, each reading one field of `<base>/<name>` and
    /// writing the bridge API's JSON through a command template:
    ///
    /// - `mist`: a fan (on/off, preset modes = the mist modes);
    /// - `led`: a light (on/off, brightness in percent, hue/saturation);
    /// - `timer`: a select of the profile's timer labels;
    /// - `minutes_left`: a duration sensor;
    /// - `problem`: a `problem` binary sensor, with the raised fault labels as attributes.
    ///
    /// A template that finds its field missing renders nothing (or `None`), which Home
    /// Assistant ignores (or shows as unknown) instead of logging a template error.
    func diffuserComponents(_ profile: DeviceProfile, _ entity: EntityContext) -> [String: Component] {
        var components: [String: Component] = [:]
        if let mist = profile.capabilities[.mist], profile.dataPoint(mist.dataPoint) != nil {
            components["mist"] = mistFan(profile, mist, entity)
        }
        if profile.dataPoint(for: .ledPower) != nil {
            components["led"] = ledLight(profile, entity)
        }
        if let timer = profile.dataPoint(for: .timer), timer.access != .readOnly, !timer.values.isEmpty {
            components["timer"] = timerSelect(timer, entity)
        }
        if profile.dataPoint(for: .minutesLeft) != nil {
            var minutesLeft = Component(
                platform: "sensor", name: "Minutes left", uniqueID: entity.uniqueID("minutes_left"))
            minutesLeft.deviceClass = "duration"
            minutesLeft.unitOfMeasurement = "min"
            minutesLeft.stateTopic = entity.state
            minutesLeft.valueTemplate = "{{ value_json.minutes_left | default(None) }}"
            components["minutes_left"] = minutesLeft
        }
        if profile.dataPoint(for: .fault) != nil {
            var problem = Component(platform: "binary_sensor", name: "Problem", uniqueID: entity.uniqueID("problem"))
            problem.deviceClass = "problem"
            problem.stateTopic = entity.state
            problem.valueTemplate = "{{ 'ON' if value_json.problem else 'OFF' }}"
            problem.jsonAttributesTopic = entity.state
            problem.jsonAttributesTemplate = "{{ {'faults': value_json.faults | default([])} | tojson }}"
            components["problem"] = problem
        }
        return components
    }

    /// The timer as a select. With the profile's `labels` the options are the labels
    /// (`off`, `1 h`) and the templates translate to and from the DP's values; labels are
    /// checked at load to need no escaping inside a template's string literal.
    private func timerSelect(_ timer: DataPointSpec, _ entity: EntityContext) -> Component {
        var select = Component(platform: "select", name: "Timer", uniqueID: entity.uniqueID("timer"))
        select.icon = "mdi:timer-outline"
        select.stateTopic = entity.state
        select.commandTopic = entity.command
        let pairs = timer.displayedValues
        // A value that could end a template literal early keeps the plain form (labels are
        // checked when the profile loads; values only for being distinct and non-empty).
        let safe = pairs.allSatisfy { pair in
            !pair.value.unicodeScalars.contains { $0 == "'" || $0 == "\\" || $0.properties.generalCategory == .control }
        }
        if !safe || pairs.allSatisfy({ $0.value == $0.label }) {
            select.options = timer.values
            select.valueTemplate = "{{ value_json.timer | default(None) }}"
            select.commandTemplate = #"{"timer":"{{ value }}"}"#
        } else {
            func literal(_ pairs: [(String, String)]) -> String {
                "{" + pairs.map { "'\($0.0)': '\($0.1)'" }.joined(separator: ", ") + "}"
            }
            let toLabel = literal(pairs.map { ($0.value, $0.label) })
            let toValue = literal(pairs.map { ($0.label, $0.value) })
            select.options = pairs.map(\.label)
            select.valueTemplate = "{{ \(toLabel).get(value_json.get('timer')) }}"
            select.commandTemplate = #"{"timer":{{ "# + toValue + ".get(value, value) | tojson }}}"
        }
        return select
    }

    /// The mist as a fan. When the master switch is a separate data point (layout M), the
    /// fan is on only when both are, and turning it on switches both; when one data point
    /// is both (layout L), the fan is that switch.
    private func mistFan(_ profile: DeviceProfile, _ mist: CapabilityBinding, _ entity: EntityContext) -> Component {
        let separateMaster = profile.capabilities[.power].map { $0.dataPoint != mist.dataPoint } ?? false
        let stateTemplate =
            separateMaster
            ? "{% if value_json.mist is defined %}{{ 'ON' if value_json.state == 'ON' and value_json.mist == 'ON' else 'OFF' }}{% endif %}"
            : "{% if value_json.mist is defined %}{{ value_json.mist }}{% endif %}"
        let commandTemplate =
            separateMaster
            ? #"{% if value == 'ON' %}{"state":"ON","mist":"ON"}{% else %}{"mist":"OFF"}{% endif %}"#
            : #"{"mist":"{{ value }}"}"#
        var fan = Component(platform: "fan", name: "Mist", uniqueID: entity.uniqueID("mist"))
        fan.icon = "mdi:weather-fog"
        fan.stateTopic = entity.state
        fan.stateValueTemplate = stateTemplate
        fan.commandTopic = entity.command
        fan.commandTemplate = commandTemplate
        if let modes = profile.dataPoint(for: .mistMode), modes.access != .readOnly, !modes.values.isEmpty {
            fan.presetModes = modes.values
            fan.presetModeStateTopic = entity.state
            fan.presetModeValueTemplate = "{{ value_json.mist_mode | default(None) }}"
            fan.presetModeCommandTopic = entity.command
            fan.presetModeCommandTemplate = #"{"mist_mode":"{{ value }}"}"#
        }
        return fan
    }

    /// The LED as a basic-schema light. That schema publishes `payload_on`/`payload_off`
    /// verbatim and compares the state template's result with them, so both are the bridge
    /// API's JSON and the state template renders the matching one.
    private func ledLight(_ profile: DeviceProfile, _ entity: EntityContext) -> Component {
        let on = #"{"led":"ON"}"#
        let off = #"{"led":"OFF"}"#
        var light = Component(platform: "light", name: "LED", uniqueID: entity.uniqueID("led"))
        light.commandTopic = entity.command
        light.payloadOn = on
        light.payloadOff = off
        light.stateTopic = entity.state
        light.stateValueTemplate =
            "{% if value_json.led is defined %}{{ '\(on)' if value_json.led == 'ON' else '\(off)' }}{% endif %}"
        if profile.dataPoint(for: .ledBrightness) != nil {
            light.brightnessScale = 100
            light.brightnessStateTopic = entity.state
            light.brightnessValueTemplate = "{{ value_json.led_brightness | default('') }}"
            light.brightnessCommandTopic = entity.command
            light.brightnessCommandTemplate = #"{"led_brightness":{{ value }}}"#
        }
        if profile.dataPoint(for: .ledColour) != nil {
            light.hsStateTopic = entity.state
            light.hsValueTemplate =
                "{% if value_json.led_color is defined %}{{ value_json.led_color.hue }},{{ value_json.led_color.saturation }}{% endif %}"
            light.hsCommandTopic = entity.command
            light.hsCommandTemplate =
                #"{"led_color":{"hue":{{ hue | round(0) | int }},"saturation":{{ sat | round(0) | int }}}}"#
        }
        return light
    }
}
