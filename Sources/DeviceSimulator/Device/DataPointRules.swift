import TuyaCore

/// What a simulated device holds before anyone writes to it, and which written values it
/// accepts: the profile decides both, the way a real product's firmware schema does.
enum DataPointRules {
    /// The profile's default when it has a valid one, otherwise a value a real device of
    /// that kind would plausibly boot with: off, full brightness, the first enum label,
    /// red for colours, no faults.
    static func initialValue(for spec: DataPointSpec, in profile: DeviceProfile) -> DPValue {
        if let value = spec.defaultValue, isValid(value, for: spec) { return value }
        let capability = profile.capabilities.first { $0.value.dataPoint == spec.id }?.key
        switch spec.type {
        case .bool:
            return .bool(false)
        case .value:
            guard let range = spec.range else { return .value(0) }
            if capability == .brightness || capability == .ledBrightness { return .value(range.upperBound) }
            return .value(range.contains(0) ? 0 : range.lowerBound)
        case .enumeration:
            return .enumeration(spec.values.first ?? "")
        case .string:
            if let format = spec.colourFormat, let red = HSVColour(hue: 0, saturation: 100, value: 100) {
                return .string(ColourCodec.encode(red, format: format))
            }
            if capability == .scene, case .string(let scene)? = profile.scenes.first?.value {
                return .string(scene)
            }
            return .string("")
        case .bitmap:
            return .bitmap(0)
        case .raw:
            return .raw([])
        }
    }

    /// Whether a device with this spec stores a written value. Read-only DPs, values
    /// outside the range or off the step, unknown labels and malformed colours are refused;
    /// firmware ignores such writes rather than answering with an error.
    static func acceptsWrite(_ value: DPValue, for spec: DataPointSpec) -> Bool {
        spec.access != .readOnly && isValid(value, for: spec)
    }

    static func isValid(_ value: DPValue, for spec: DataPointSpec) -> Bool {
        guard value.type == spec.type else { return false }
        switch value {
        case .value(let number):
            guard let range = spec.range else { return true }
            guard range.contains(number) else { return false }
            return spec.step <= 1 || (Int64(number) - Int64(range.lowerBound)) % Int64(spec.step) == 0
        case .enumeration(let label):
            return spec.values.contains(label)
        case .string(let text):
            guard text.utf8.count <= 255 else { return false }
            guard let format = spec.colourFormat else { return true }
            do throws(MappingError) {
                _ = try ColourCodec.decode(text, format: format)
                return true
            } catch {
                return false
            }
        case .raw(let bytes):
            return bytes.count <= 255
        case .bool, .bitmap:
            return true
        }
    }
}
