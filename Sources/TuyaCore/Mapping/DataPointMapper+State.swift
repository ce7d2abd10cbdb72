/// Data point report → typed state. Every reader returns nil for a DP the profile does
/// not bind, a DP missing from the report or a value of the wrong type, so a hostile or
/// buggy device can blank a field but never crash the gateway.
extension DataPointMapper {
    func lightState(from reported: DataPoints) -> LightState {
        let mode = label(.workMode, in: reported)
        let colour = colour(.colour, in: reported)
        // In colour mode the light's brightness is its colour's value, not the white channel's.
        let brightness = mode == "colour" && colour != nil ? colour?.value : percent(.brightness, in: reported)
        return LightState(
            power: bool(.power, in: reported),
            mode: mode,
            brightness: brightness,
            colorTemperature: kelvin(in: reported),
            colour: colour,
            scene: sceneName(in: reported),
            countdown: integer(.countdown, in: reported)
        )
    }

    /// The light's reported colour (nil when it has none or reported none).
    func reportedColour(in reported: DataPoints) -> HSVColour? { colour(.colour, in: reported) }

    func diffuserState(from reported: DataPoints) -> DiffuserState {
        let power = bool(.power, in: reported)
        // Layout L has no spray switch: the master switch is the mist (§4.2).
        let mist = profile.capabilities[.mist] != nil ? bool(.mist, in: reported) : power
        return DiffuserState(
            power: power,
            mist: mist,
            mistMode: label(.mistMode, in: reported),
            ledPower: bool(.ledPower, in: reported),
            ledMode: label(.ledMode, in: reported),
            ledBrightness: percent(.ledBrightness, in: reported),
            ledColour: colour(.ledColour, in: reported),
            timer: label(.timer, in: reported),
            minutesLeft: integer(.minutesLeft, in: reported),
            faults: faults(in: reported)
        )
    }

    // MARK: - Readers

    private func reported(_ capability: Capability, in values: DataPoints) -> (DataPointSpec, DPValue)? {
        guard let spec = profile.dataPoint(for: capability), let value = values[spec.id] else { return nil }
        return (spec, value)
    }

    private func bool(_ capability: Capability, in values: DataPoints) -> Bool? {
        guard case (_, .bool(let on))? = reported(capability, in: values) else { return nil }
        return on
    }

    private func integer(_ capability: Capability, in values: DataPoints) -> Int? {
        guard case (_, .value(let v))? = reported(capability, in: values) else { return nil }
        return Int(v)
    }

    private func percent(_ capability: Capability, in values: DataPoints) -> Int? {
        guard case (let spec, .value(let v))? = reported(capability, in: values), let range = spec.range else {
            return nil
        }
        return ValueScaling.percent(fromRaw: v, range: range)
    }

    private func kelvin(in values: DataPoints) -> Int? {
        guard case (let spec, .value(let v))? = reported(.colorTemperature, in: values), let range = spec.range else {
            return nil
        }
        let bounds = profile.capabilities[.colorTemperature]?.kelvin ?? Self.defaultKelvin
        return ValueScaling.kelvin(fromRaw: v, kelvinRange: bounds, range: range)
    }

    private func colour(_ capability: Capability, in values: DataPoints) -> HSVColour? {
        guard case (let spec, .string(let hex))? = reported(capability, in: values), let format = spec.colourFormat
        else {
            return nil
        }
        return try? ColourCodec.decode(hex, format: format)
    }

    /// Enum labels as JSON carries them, string-typed enums, and the BLE index form
    /// (protocol/TUYA.md §1.8) should a transport hand one over unconverted.
    func label(_ capability: Capability, in values: DataPoints) -> String? {
        switch reported(capability, in: values) {
        case (_, .enumeration(let label))?, (_, .string(let label))?: label
        case (let spec, .value(let index))?: spec.enumLabel(at: Int(index))
        default: nil
        }
    }

    /// Raised bits, lowest first, by the profile's label or `bit<n>` (§5).
    private func faults(in values: DataPoints) -> [String] {
        let bits: UInt32
        switch reported(.fault, in: values) {
        case (_, .bitmap(let m))?: bits = m
        case (_, .value(let v))?: bits = UInt32(bitPattern: v)
        default: return []
        }
        return (0..<32).filter { bits & (1 << UInt32($0)) != 0 }.map { bit in
            profile.faults.first { $0.bit == bit }?.label ?? "bit\(bit)"
        }
    }

    /// The profile's name for the reported scene value; hex strings compare case-insensitively.
    private func sceneName(in values: DataPoints) -> String? {
        guard let (_, value) = reported(.scene, in: values) else { return nil }
        // A device reports back the value it was sent: an exact match is the common case, and
        // scene values (long hex strings sharing a prefix) compare fastest exactly.
        if let exact = profile.scenes.first(where: { $0.value == value }) { return exact.name }
        guard case .string(let reported) = value else { return nil }
        return profile.scenes.first { scene in
            if case .string(let name) = scene.value { Self.equalIgnoringCase(name, reported) } else { false }
        }?.name
    }

    /// `a.lowercased() == b.lowercased()`, without making two strings per scene for every
    /// report when both are ASCII (hex scene values are).
    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.utf8, b.utf8)
        guard x.allSatisfy({ $0 < 0x80 }), y.allSatisfy({ $0 < 0x80 }) else { return a.lowercased() == b.lowercased() }
        func folded(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return x.count == y.count && zip(x, y).allSatisfy { folded($0) == folded($1) }
    }
}
