import TuyaCore

/// A paired device as listed on `<base>/bridge/devices`: who it is and what it can do, in
/// the field names `/set` takes and `<base>/<name>` reports. Never carries the local key.
public enum BridgeDevicePayload {
    public static func json(_ device: TuyaDevice, profile: DeviceProfile?) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(device.id.rawValue),
            "friendly_name": .string(device.name),
            "transport": .string(device.transport.rawValue),
            "category": .string(device.category == .light ? "light" : "diffuser"),
            "profile": .string(device.profileID),
        ]
        if let productID = device.productID { fields["product_id"] = .string(productID) }
        if let profile {
            fields["model"] = .string(profile.name)
            if let manufacturer = profile.manufacturer { fields["manufacturer"] = .string(manufacturer) }
            fields["capabilities"] = .array(capabilities(of: profile))
        } else {
            // The profile was removed or failed to load: the device is kept, but cannot be driven.
            fields["capabilities"] = .array([])
            fields["problem"] = .string("profile \(device.profileID) is not loaded")
        }
        return .object(fields)
    }

    /// One entry per capability the profile binds, sorted by name.
    public static func capabilities(of profile: DeviceProfile) -> [JSONValue] {
        var entries: [(String, JSONValue)] = []
        for (capability, binding) in profile.capabilities {
            guard let spec = profile.dataPoint(binding.dataPoint), let entry = entry(capability, binding, spec, profile)
            else { continue }
            entries.append(entry)
        }
        return entries.sorted { $0.0 < $1.0 }.map(\.1)
    }

    private static func entry(
        _ capability: Capability, _ binding: CapabilityBinding, _ spec: DataPointSpec, _ profile: DeviceProfile
    ) -> (String, JSONValue)? {
        let access: JSONValue = .string(spec.access == .readOnly ? "r" : spec.access == .writeOnly ? "w" : "rw")
        func item(_ name: String, _ type: String, _ extra: [String: JSONValue] = [:]) -> (String, JSONValue) {
            var fields = extra
            fields["name"] = .string(name)
            fields["type"] = .string(type)
            fields["access"] = access
            return (name, .object(fields))
        }
        let onOff: [String: JSONValue] = ["values": .array([.string("ON"), .string("OFF")])]
        let percent: [String: JSONValue] = ["min": .integer(0), "max": .integer(100), "unit": .string("%")]
        let hueSaturation: [String: JSONValue] = [
            "features": .array([.string("hue"), .string("saturation")])
        ]
        switch capability {
        case .power: return item("state", "binary", onOff)
        case .brightness: return item("brightness", "numeric", percent)
        case .colorTemperature:
            guard let kelvin = binding.kelvin else { return nil }
            return item(
                "color_temp", "numeric",
                [
                    "min": .integer(Int64(kelvin.lowerBound)), "max": .integer(Int64(kelvin.upperBound)),
                    "unit": .string("K"),
                ])
        case .colour: return item("color", "composite", hueSaturation)
        case .scene:
            return item("scene", "enum", ["values": .array(profile.scenes.map { .string($0.name) })])
        case .countdown:
            var extra: [String: JSONValue] = ["unit": .string("s")]
            if let range = spec.range {
                extra["min"] = .integer(Int64(range.lowerBound))
                extra["max"] = .integer(Int64(range.upperBound))
            }
            return item("countdown", "numeric", extra)
        case .mist: return item("mist", "binary", onOff)
        case .mistMode: return item("mist_mode", "enum", ["values": .array(spec.values.map(JSONValue.string))])
        case .ledPower: return item("led", "binary", onOff)
        case .ledBrightness: return item("led_brightness", "numeric", percent)
        case .ledColour: return item("led_color", "composite", hueSaturation)
        case .ledMode: return item("led_mode", "enum", ["values": .array(spec.values.map(JSONValue.string))])
        case .timer:
            var extra: [String: JSONValue] = ["values": .array(spec.values.map(JSONValue.string))]
            if !spec.labels.isEmpty { extra["labels"] = .array(spec.labels.map(JSONValue.string)) }
            return item("timer", "enum", extra)
        case .minutesLeft: return item("minutes_left", "numeric", ["unit": .string("min")])
        case .fault:
            return item("faults", "list", ["values": .array(profile.faults.map { .string($0.label) })])
        case .workMode: return item("work_mode", "enum", ["values": .array(spec.values.map(JSONValue.string))])
        case .sound: return nil
        }
    }
}
