/// Parsing of `capabilities:`: each capability is bound to one DP of the type it needs.
extension ProfileLoader {
    /// The DP type each capability drives. `scene` takes a scene string or a list of scene labels.
    static func acceptedTypes(for capability: Capability) -> [DataPointType] {
        switch capability {
        case .power, .mist, .ledPower, .sound: [.bool]
        case .brightness, .colorTemperature, .countdown, .ledBrightness, .minutesLeft: [.value]
        case .colour, .ledColour: [.string]
        case .workMode, .mistMode, .ledMode, .timer: [.enumeration]
        case .scene: [.string, .enumeration]
        case .fault: [.bitmap]
        }
    }

    static let kelvinBounds = 1000...10_000

    static func capabilityBindings(
        _ node: ProfileNode, dataPoints: [DataPointSpec]
    ) throws(ProfileError) -> [Capability: CapabilityBinding] {
        var bindings: [Capability: CapabilityBinding] = [:]
        for (name, value) in try node.namedEntries() {
            guard let capability = Capability(rawValue: name) else {
                throw value.error(
                    "unknown capability '\(name.prefix(40))'; expected one of: "
                        + Capability.allCases.map(\.rawValue).joined(separator: ", "))
            }
            bindings[capability] = try binding(value, for: capability, dataPoints: dataPoints)
        }
        return bindings
    }

    /// `power: switch_led`, `power: 20`, or `color_temp: { dp: temp_value_v2, kelvin_min: 2700, kelvin_max: 6500 }`.
    private static func binding(
        _ node: ProfileNode, for capability: Capability, dataPoints: [DataPointSpec]
    ) throws(ProfileError) -> CapabilityBinding {
        var dpNode = node
        var kelvin: ClosedRange<Int>?
        if case .mapping = node.node {
            let keys = capability == .colorTemperature ? ["dp", "kelvin_min", "kelvin_max"] : ["dp"]
            let entries = try node.mapping(allowed: keys)
            dpNode = try entries.required("dp")
            if capability == .colorTemperature {
                let low = try entries.required("kelvin_min").int()
                let highNode = try entries.required("kelvin_max")
                let high = try highNode.int()
                guard kelvinBounds.contains(low), kelvinBounds.contains(high), low < high else {
                    throw node.error(
                        "kelvin_min \(low) and kelvin_max \(high) must lie in 1000...10000 with kelvin_min below kelvin_max"
                    )
                }
                kelvin = low...high
            }
        } else if capability == .colorTemperature {
            throw node.error(
                "color_temp needs kelvin bounds: write { dp: <code or id>, kelvin_min: 2700, kelvin_max: 6500 }")
        }
        let spec = try referencedDataPoint(dpNode, dataPoints: dataPoints)
        let accepted = acceptedTypes(for: capability)
        guard accepted.contains(spec.type) else {
            let wanted = accepted.map(\.name).joined(separator: " or ")
            throw dpNode.error(
                "\(capability.rawValue) needs a DP of type \(wanted), but \(spec.code) (DP\(spec.id.intValue)) is \(spec.type.name)"
            )
        }
        if capability == .colour || capability == .ledColour, spec.colourFormat == nil {
            throw dpNode.error(
                "\(capability.rawValue) needs a string DP with a format; add 'format: hsv16' or 'format: rgbhsv' to \(spec.code)"
            )
        }
        return CapabilityBinding(dataPoint: spec.id, kelvin: kelvin)
    }

    /// A DP named by code (`switch_led`) or by id (`20`).
    private static func referencedDataPoint(
        _ node: ProfileNode, dataPoints: [DataPointSpec]
    ) throws(ProfileError) -> DataPointSpec {
        if case .scalar(let scalar) = node.node, scalar.style == .plain, let number = Int(scalar.string) {
            guard let spec = dataPoints.first(where: { $0.id.intValue == number }) else {
                throw node.error("no data point with id \(number); declare it under data_points")
            }
            return spec
        }
        let code = try node.string()
        guard let spec = dataPoints.first(where: { $0.code == code }) else {
            throw node.error("no data point with code '\(code.prefix(40))'; declare it under data_points")
        }
        return spec
    }
}
