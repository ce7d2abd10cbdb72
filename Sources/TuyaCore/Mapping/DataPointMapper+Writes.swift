/// Command → data point writes. The rules are on `DataPointMapper`.
extension DataPointMapper {
    func writes(forLight command: LightCommand) throws(MappingError) -> DataPoints {
        if command.colour != nil, command.colorTemperature != nil {
            throw .conflictingFields(["colour", "colorTemperature"], profile: profile.id)
        }
        if command.scene != nil, command.colour != nil || command.colorTemperature != nil {
            throw .conflictingFields(
                ["scene", command.colour != nil ? "colour" : "colorTemperature"], profile: profile.id)
        }
        var batch = WriteBatch(profile: profile.id)
        if let power = command.power {
            try batch.put(boolWrite(power, capability: .power, field: "power"))
        }
        if let brightness = command.brightness {
            try batch.put(percentWrite(brightness, capability: .brightness, field: "brightness"))
        }
        if let kelvin = command.colorTemperature {
            try batch.put(kelvinWrite(kelvin, field: "colorTemperature"))
        }
        if let colour = command.colour {
            try batch.put(colourWrite(colour, capability: .colour, field: "colour"))
        }
        var sceneDataPoint: DataPointID?
        if let scene = command.scene {
            let write = try sceneWrite(scene)
            sceneDataPoint = write.id
            try batch.put(write)
        }
        if let countdown = command.countdown {
            try batch.put(countdownWrite(countdown))
        }
        // Legacy v1 bulbs select a scene through work_mode itself (`scene_1`…, §4.1): the
        // scene write already is the mode write.
        if let mode = Self.mode(for: command), let write = modeWrite(mode, capability: .workMode),
            write.id != sceneDataPoint
        {
            try batch.put(write)
        }
        return batch.values
    }

    /// The command with its brightness moved into the colour when the light shows a colour
    /// (rules on `DataPointMapper`): brightness with `colour` is the colour's value;
    /// brightness alone on a light in colour mode becomes its current colour at that value.
    func inColourTerms(_ command: LightCommand, current: DataPoints) -> LightCommand {
        // Out of range stays where it is, for the brightness field's own error.
        guard let brightness = command.brightness, (0...100).contains(brightness), command.colorTemperature == nil,
            command.scene == nil, profile.dataPoint(for: .colour) != nil
        else { return command }
        // The mode alone, as `lightState(from:)` reads it, not the whole state.
        let shown = command.colour ?? (label(.workMode, in: current) == "colour" ? reportedColour(in: current) : nil)
        guard var colour = shown else { return command }
        // A colour at value 0 is black, which bulbs refuse or show as off: 1 % is the floor.
        colour.value = max(1, brightness)
        var moved = command
        moved.colour = colour
        moved.brightness = nil
        return moved
    }

    /// The `work_mode` label a light command implies (rules on `DataPointMapper`).
    static func mode(for command: LightCommand) -> String? {
        if command.colour != nil { return "colour" }
        if command.scene != nil { return "scene" }
        if command.colorTemperature != nil || command.brightness != nil { return "white" }
        return nil
    }

    func writes(forDiffuser command: DiffuserCommand) throws(MappingError) -> DataPoints {
        var batch = WriteBatch(profile: profile.id)
        if let power = command.power {
            try batch.put(boolWrite(power, capability: .power, field: "power"))
        }
        if let mist = command.mist {
            // Layout L diffusers have only the master switch (protocol/TUYA.md §4.2).
            let capability: Capability = profile.capabilities[.mist] != nil ? .mist : .power
            guard profile.capabilities[capability] != nil else {
                throw .unsupported(field: "mist", capability: .mist, profile: profile.id)
            }
            try batch.put(boolWrite(mist, capability: capability, field: "mist"))
        }
        if let mode = command.mistMode {
            try batch.put(labelWrite(mode, capability: .mistMode, field: "mistMode"))
        }
        if let ledPower = command.ledPower {
            try batch.put(boolWrite(ledPower, capability: .ledPower, field: "ledPower"))
        }
        if let brightness = command.ledBrightness {
            try batch.put(percentWrite(brightness, capability: .ledBrightness, field: "ledBrightness"))
        }
        if let colour = command.ledColour {
            try batch.put(colourWrite(colour, capability: .ledColour, field: "ledColour"))
            if let write = modeWrite("colour", capability: .ledMode) {
                try batch.put(write)
            }
        }
        if let timer = command.timer {
            try batch.put(labelWrite(timer, capability: .timer, field: "timer"))
        }
        return batch.values
    }

    // MARK: - One field

    /// The writable data point behind a capability, or the error a user can act on.
    private func writableSpec(_ capability: Capability, field: String) throws(MappingError) -> DataPointSpec {
        guard let binding = profile.capabilities[capability] else {
            throw .unsupported(field: field, capability: capability, profile: profile.id)
        }
        guard let spec = profile.dataPoint(binding.dataPoint) else {
            throw .profileIncomplete(
                capability: capability, reason: "\(binding.dataPoint) is not among its data points", profile: profile.id
            )
        }
        guard spec.access != .readOnly else {
            throw .readOnly(field: field, capability: capability, dataPoint: spec.id, profile: profile.id)
        }
        return spec
    }

    private func requireType(
        _ spec: DataPointSpec, _ types: [DataPointType], capability: Capability
    ) throws(MappingError) {
        guard types.contains(spec.type) else {
            let expected = types.map(\.name).sorted().joined(separator: " or ")
            throw .profileIncomplete(
                capability: capability, reason: "\(spec.id) is \(spec.type), expected \(expected)", profile: profile.id)
        }
    }

    private func boolWrite(_ on: Bool, capability: Capability, field: String) throws(MappingError) -> Write {
        let spec = try writableSpec(capability, field: field)
        try requireType(spec, [.bool], capability: capability)
        return Write(id: spec.id, value: .bool(on), field: field)
    }

    private func percentWrite(_ percent: Int, capability: Capability, field: String) throws(MappingError) -> Write {
        let spec = try writableSpec(capability, field: field)
        try requireType(spec, [.value], capability: capability)
        guard (0...100).contains(percent) else {
            throw .outOfRange(field: field, value: percent, valid: 0...100, profile: profile.id)
        }
        guard let range = spec.range else {
            throw .profileIncomplete(
                capability: capability, reason: "\(spec.id) declares no range", profile: profile.id)
        }
        return Write(
            id: spec.id, value: .value(ValueScaling.raw(fromPercent: percent, range: range, step: spec.step)),
            field: field)
    }

    private func kelvinWrite(_ kelvin: Int, field: String) throws(MappingError) -> Write {
        let spec = try writableSpec(.colorTemperature, field: field)
        try requireType(spec, [.value], capability: .colorTemperature)
        let bounds = profile.capabilities[.colorTemperature]?.kelvin ?? Self.defaultKelvin
        guard bounds.contains(kelvin) else {
            throw .outOfRange(field: field, value: kelvin, valid: bounds, profile: profile.id)
        }
        guard let range = spec.range else {
            throw .profileIncomplete(
                capability: .colorTemperature, reason: "\(spec.id) declares no range", profile: profile.id)
        }
        let raw = ValueScaling.raw(fromKelvin: kelvin, kelvinRange: bounds, range: range, step: spec.step)
        return Write(id: spec.id, value: .value(raw), field: field)
    }

    private func colourWrite(_ colour: HSVColour, capability: Capability, field: String) throws(MappingError) -> Write {
        let spec = try writableSpec(capability, field: field)
        try requireType(spec, [.string], capability: capability)
        guard let format = spec.colourFormat else {
            throw .profileIncomplete(
                capability: capability, reason: "\(spec.id) declares no colour format", profile: profile.id)
        }
        return Write(id: spec.id, value: .string(ColourCodec.encode(colour, format: format)), field: field)
    }

    /// Enum labels; some vendors declare enum-like DPs as strings with a value list (§4.2).
    private func labelWrite(_ label: String, capability: Capability, field: String) throws(MappingError) -> Write {
        let spec = try writableSpec(capability, field: field)
        try requireType(spec, [.enumeration, .string], capability: capability)
        guard let value = spec.enumValue(named: label) else {
            let shown = spec.labels.count == spec.values.count ? spec.labels : spec.values
            throw .unknownLabel(field: field, label: label, valid: shown, profile: profile.id)
        }
        return Write(id: spec.id, value: spec.type == .string ? .string(value) : .enumeration(value), field: field)
    }

    private func sceneWrite(_ name: String) throws(MappingError) -> Write {
        let spec = try writableSpec(.scene, field: "scene")
        guard let scene = profile.scenes.first(where: { $0.name == name }) else {
            throw .unknownLabel(field: "scene", label: name, valid: profile.scenes.map(\.name), profile: profile.id)
        }
        guard scene.value.type == spec.type else {
            throw .profileIncomplete(
                capability: .scene, reason: "scene '\(name)' is \(scene.value.type) but \(spec.id) is \(spec.type)",
                profile: profile.id)
        }
        return Write(id: spec.id, value: scene.value, field: "scene")
    }

    private func countdownWrite(_ seconds: Int) throws(MappingError) -> Write {
        let spec = try writableSpec(.countdown, field: "countdown")
        try requireType(spec, [.value], capability: .countdown)
        let range = spec.range ?? Self.defaultCountdown
        let valid = Int(range.lowerBound)...Int(range.upperBound)
        guard valid.contains(seconds), let raw = Int32(exactly: seconds) else {
            throw .outOfRange(field: "countdown", value: seconds, valid: valid, profile: profile.id)
        }
        return Write(id: spec.id, value: .value(raw), field: "countdown")
    }

    /// The mode write, or nil when the profile cannot express the mode: modes are a side
    /// effect of other fields, so a product without a writable mode DP is not an error.
    private func modeWrite(_ label: String, capability: Capability) -> Write? {
        guard let spec = profile.dataPoint(for: capability), spec.access != .readOnly,
            spec.type == .enumeration || spec.type == .string, spec.values.contains(label)
        else { return nil }
        return Write(
            id: spec.id, value: spec.type == .string ? .string(label) : .enumeration(label), field: capability.rawValue)
    }
}
