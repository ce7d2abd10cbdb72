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
    func diffuserComponents(_ profile: DeviceProfile, _ entity: EntityContext) -> [String: JSONValue] {
        var components: [String: JSONValue] = [:]
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
            components["minutes_left"] = .object([
                "platform": .string("sensor"),
                "name": .string("Minutes left"),
                "unique_id": entity.uniqueID("minutes_left"),
                "device_class": .string("duration"),
                "unit_of_measurement": .string("min"),
                "state_topic": .string(entity.state),
                "value_template": .string("{{ value_json.minutes_left | default(None) }}"),
            ])
        }
        if profile.dataPoint(for: .fault) != nil {
            components["problem"] = .object([
                "platform": .string("binary_sensor"),
                "name": .string("Problem"),
                "unique_id": entity.uniqueID("problem"),
                "device_class": .string("problem"),
                "state_topic": .string(entity.state),
                "value_template": .string("{{ 'ON' if value_json.problem else 'OFF' }}"),
                "json_attributes_topic": .string(entity.state),
                "json_attributes_template": .string("{{ {'faults': value_json.faults | default([])} | tojson }}"),
            ])
        }
        return components
    }

    /// The timer as a select. With the profile's `labels` the options are the labels
    /// (`off`, `1 h`) and the templates translate to and from the DP's values; labels are
    /// checked at load to need no escaping inside a template's string literal.
    private func timerSelect(_ timer: DataPointSpec, _ entity: EntityContext) -> JSONValue {
        var select: [String: JSONValue] = [
            "platform": .string("select"),
            "name": .string("Timer"),
            "unique_id": entity.uniqueID("timer"),
            "icon": .string("mdi:timer-outline"),
            "state_topic": .string(entity.state),
            "command_topic": .string(entity.command),
        ]
        let pairs = timer.displayedValues
        // A value that could end a template literal early keeps the plain form (labels are
        // checked when the profile loads; values only for being distinct and non-empty).
        let safe = pairs.allSatisfy { pair in
            !pair.value.unicodeScalars.contains { $0 == "'" || $0 == "\\" || $0.properties.generalCategory == .control }
        }
        if !safe || pairs.allSatisfy({ $0.value == $0.label }) {
            select["options"] = .array(timer.values.map(JSONValue.string))
            select["value_template"] = .string("{{ value_json.timer | default(None) }}")
            select["command_template"] = .string(#"{"timer":"{{ value }}"}"#)
        } else {
            func literal(_ pairs: [(String, String)]) -> String {
                "{" + pairs.map { "'\($0.0)': '\($0.1)'" }.joined(separator: ", ") + "}"
            }
            let toLabel = literal(pairs.map { ($0.value, $0.label) })
            let toValue = literal(pairs.map { ($0.label, $0.value) })
            select["options"] = .array(pairs.map { .string($0.label) })
            select["value_template"] = .string("{{ \(toLabel).get(value_json.get('timer')) }}")
            select["command_template"] = .string(#"{"timer":{{ "# + toValue + ".get(value, value) | tojson }}}")
        }
        return .object(select)
    }

    /// The mist as a fan. When the master switch is a separate data point (layout M), the
    /// fan is on only when both are, and turning it on switches both; when one data point
    /// is both (layout L), the fan is that switch.
    private func mistFan(_ profile: DeviceProfile, _ mist: CapabilityBinding, _ entity: EntityContext) -> JSONValue {
        let separateMaster = profile.capabilities[.power].map { $0.dataPoint != mist.dataPoint } ?? false
        let stateTemplate =
            separateMaster
            ? "{% if value_json.mist is defined %}{{ 'ON' if value_json.state == 'ON' and value_json.mist == 'ON' else 'OFF' }}{% endif %}"
            : "{% if value_json.mist is defined %}{{ value_json.mist }}{% endif %}"
        let commandTemplate =
            separateMaster
            ? #"{% if value == 'ON' %}{"state":"ON","mist":"ON"}{% else %}{"mist":"OFF"}{% endif %}"#
            : #"{"mist":"{{ value }}"}"#
        var fan: [String: JSONValue] = [
            "platform": .string("fan"),
            "name": .string("Mist"),
            "unique_id": entity.uniqueID("mist"),
            "icon": .string("mdi:weather-fog"),
            "state_topic": .string(entity.state),
            "state_value_template": .string(stateTemplate),
            "command_topic": .string(entity.command),
            "command_template": .string(commandTemplate),
        ]
        if let modes = profile.dataPoint(for: .mistMode), modes.access != .readOnly, !modes.values.isEmpty {
            fan["preset_modes"] = .array(modes.values.map(JSONValue.string))
            fan["preset_mode_state_topic"] = .string(entity.state)
            fan["preset_mode_value_template"] = .string("{{ value_json.mist_mode | default(None) }}")
            fan["preset_mode_command_topic"] = .string(entity.command)
            fan["preset_mode_command_template"] = .string(#"{"mist_mode":"{{ value }}"}"#)
        }
        return .object(fan)
    }

    /// The LED as a basic-schema light. That schema publishes `payload_on`/`payload_off`
    /// verbatim and compares the state template's result with them, so both are the bridge
    /// API's JSON and the state template renders the matching one.
    private func ledLight(_ profile: DeviceProfile, _ entity: EntityContext) -> JSONValue {
        let on = #"{"led":"ON"}"#
        let off = #"{"led":"OFF"}"#
        var light: [String: JSONValue] = [
            "platform": .string("light"),
            "name": .string("LED"),
            "unique_id": entity.uniqueID("led"),
            "command_topic": .string(entity.command),
            "payload_on": .string(on),
            "payload_off": .string(off),
            "state_topic": .string(entity.state),
            "state_value_template": .string(
                "{% if value_json.led is defined %}{{ '\(on)' if value_json.led == 'ON' else '\(off)' }}{% endif %}"),
        ]
        if profile.dataPoint(for: .ledBrightness) != nil {
            light["brightness_scale"] = .integer(100)
            light["brightness_state_topic"] = .string(entity.state)
            light["brightness_value_template"] = .string("{{ value_json.led_brightness | default('') }}")
            light["brightness_command_topic"] = .string(entity.command)
            light["brightness_command_template"] = .string(#"{"led_brightness":{{ value }}}"#)
        }
        if profile.dataPoint(for: .ledColour) != nil {
            light["hs_state_topic"] = .string(entity.state)
            light["hs_value_template"] = .string(
                "{% if value_json.led_color is defined %}{{ value_json.led_color.hue }},{{ value_json.led_color.saturation }}{% endif %}"
            )
            light["hs_command_topic"] = .string(entity.command)
            light["hs_command_template"] = .string(
                #"{"led_color":{"hue":{{ hue | round(0) | int }},"saturation":{{ sat | round(0) | int }}}}"#)
        }
        return .object(light)
    }
}
