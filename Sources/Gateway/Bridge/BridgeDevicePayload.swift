import TuyaCore

/// A paired device as listed on `<base>/bridge/devices`: who it is and what it can do, in
/// the field names `/set` takes and `<base>/<name>` reports. Never carries the local key.
public struct BridgeDevicePayload: Codable, Hashable, Sendable {
    public var id: String
    public var friendlyName: String
    public var transport: String
    public var category: String
    public var profile: String
    public var productID: String?
    public var model: String?
    public var manufacturer: String?
    public var capabilities: [Exposed]
    /// Why the device cannot be driven (its profile is not loaded).
    public var problem: String?

    /// One capability as `/set` takes it: its field name, kind, access and range or values.
    public struct Exposed: Codable, Hashable, Sendable {
        public var name: String
        public var type: String
        public var access: String
        public var values: [String]?
        public var labels: [String]?
        public var features: [String]?
        public var min: Int?
        public var max: Int?
        public var unit: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, transport, category, profile, model, manufacturer, capabilities, problem
        case friendlyName = "friendly_name"
        case productID = "product_id"
    }

    public init(_ device: TuyaDevice, profile: DeviceProfile?) {
        id = device.id.rawValue
        friendlyName = device.name
        transport = device.transport.rawValue
        category = device.category == .light ? "light" : "diffuser"
        self.profile = device.profileID
        productID = device.productID
        if let profile {
            model = profile.name
            manufacturer = profile.manufacturer
            capabilities = Self.capabilities(of: profile)
        } else {
            // The profile was removed or failed to load: the device is kept, but cannot be driven.
            capabilities = []
            problem = "profile \(device.profileID) is not loaded"
        }
    }

    /// As the bridge publishes it.
    public static func json(_ device: TuyaDevice, profile: DeviceProfile?) -> JSONValue {
        BridgeJSON.value(BridgeDevicePayload(device, profile: profile))
    }

    /// One entry per capability the profile binds, sorted by name.
    public static func capabilities(of profile: DeviceProfile) -> [Exposed] {
        var entries: [Exposed] = []
        for (capability, binding) in profile.capabilities {
            guard let spec = profile.dataPoint(binding.dataPoint), let entry = entry(capability, binding, spec, profile)
            else { continue }
            entries.append(entry)
        }
        return entries.sorted { $0.name < $1.name }
    }

    private static func entry(
        _ capability: Capability, _ binding: CapabilityBinding, _ spec: DataPointSpec, _ profile: DeviceProfile
    ) -> Exposed? {
        let access = spec.access == .readOnly ? "r" : spec.access == .writeOnly ? "w" : "rw"
        func item(_ name: String, _ type: String, values: [String]? = nil, unit: String? = nil) -> Exposed {
            Exposed(name: name, type: type, access: access, values: values, unit: unit)
        }
        func numeric(_ name: String, _ range: ClosedRange<Int>?, unit: String) -> Exposed {
            var exposed = item(name, "numeric", unit: unit)
            exposed.min = range?.lowerBound
            exposed.max = range?.upperBound
            return exposed
        }
        func composite(_ name: String) -> Exposed {
            var exposed = item(name, "composite")
            exposed.features = ["hue", "saturation"]
            return exposed
        }
        let onOff = ["ON", "OFF"]
        switch capability {
        case .power: return item("state", "binary", values: onOff)
        case .brightness: return numeric("brightness", 0...100, unit: "%")
        case .colorTemperature:
            guard let kelvin = binding.kelvin else { return nil }
            return numeric("color_temp", kelvin, unit: "K")
        case .colour: return composite("color")
        case .scene: return item("scene", "enum", values: profile.scenes.map(\.name))
        case .countdown:
            return numeric("countdown", spec.range.map { Int($0.lowerBound)...Int($0.upperBound) }, unit: "s")
        case .mist: return item("mist", "binary", values: onOff)
        case .mistMode: return item("mist_mode", "enum", values: spec.values)
        case .ledPower: return item("led", "binary", values: onOff)
        case .ledBrightness: return numeric("led_brightness", 0...100, unit: "%")
        case .ledColour: return composite("led_color")
        case .ledMode: return item("led_mode", "enum", values: spec.values)
        case .timer:
            var timer = item("timer", "enum", values: spec.values)
            if !spec.labels.isEmpty { timer.labels = spec.labels }
            return timer
        case .minutesLeft: return item("minutes_left", "numeric", unit: "min")
        case .fault: return item("faults", "list", values: profile.faults.map(\.label))
        case .workMode: return item("work_mode", "enum", values: spec.values)
        case .sound: return nil
        }
    }
}
