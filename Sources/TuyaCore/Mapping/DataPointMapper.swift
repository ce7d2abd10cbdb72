/// Translates typed commands into data point writes and data point reports into typed
/// state, through one product's `DeviceProfile`. DP ids, ranges, enum labels and colour
/// layouts all come from the profile, never from code (protocol/TUYA.md §4: vendors
/// deviate from the templates). Pure: the device's current values, when the caller passes
/// them, are an input like the command.
///
/// Writing (`writes(for:)`):
/// - Only capabilities the profile binds are written; a field for a missing capability,
///   a value outside its range or an unknown label throws a `MappingError`.
/// - Read-only DPs are never written: a field bound to one throws `readOnly`.
/// - Mode follows the command, as the Tuya app does (§4.1 `work_mode`): colour → `colour`,
///   scene → `scene`, colour temperature or brightness without colour or scene → `white`.
///   The mode DP is written only when the profile binds it, it is writable and it lists
///   that label. A command asking for two modes (colour with colour temperature or scene)
///   is rejected as conflicting.
/// - Brightness is the brightness of what the light shows. With `colour` in the same
///   command it is the colour's HSV value. Alone, on a light whose current values say it
///   is in colour mode, it is written as that colour with the new value, and the light
///   stays in colour (Home Assistant's slider, a timer bell's dip). Otherwise it drives
///   the white channel DP (`bright_value`) and selects white, as without current values.
///   Reading follows: in colour mode the state's brightness is the colour's value.
/// - Diffusers: `mist` on a product without a separate spray switch (layout L, §4.2) drives
///   the master switch; setting the LED colour also selects the LED `colour` mode.
///
/// Reading (`state(from:)`) never throws: DPs the profile does not know and values of
/// the wrong type are skipped; `validate(_:)` lists them.
public struct DataPointMapper: Hashable, Sendable {
    public let profile: DeviceProfile

    /// Used for `color_temp` when the binding declares no kelvin bounds: the span tuya-local
    /// maps 0–1000 onto (protocol/TUYA.md §4.1).
    public static let defaultKelvin: ClosedRange<Int> = 2700...6500
    /// `countdown` range for a value DP that declares none: 0–86400 s (§4.1).
    static let defaultCountdown: ClosedRange<Int32> = 0...86400

    public init(profile: DeviceProfile) {
        self.profile = profile
    }

    /// The data points to write for a command, validated against the profile.
    /// `current` is what the device reported last (empty: map the command on its own).
    public func writes(for command: DeviceCommand, current: DataPoints = [:]) throws(MappingError) -> DataPoints {
        switch command {
        case .light(let light):
            guard profile.category == .light else {
                throw .wrongDeviceKind(command: "light", category: profile.category, profile: profile.id)
            }
            return try writes(forLight: inColourTerms(light, current: current))
        case .diffuser(let diffuser):
            guard profile.category == .diffuser else {
                throw .wrongDeviceKind(command: "diffuser", category: profile.category, profile: profile.id)
            }
            return try writes(forDiffuser: diffuser)
        }
    }

    /// The typed state a report describes. Fields the report does not carry stay nil.
    public func state(from reported: DataPoints) -> DeviceState {
        switch profile.category {
        case .light: .light(lightState(from: reported))
        case .diffuser: .diffuser(diffuserState(from: reported))
        }
    }

    /// Problems in a report, sorted by DP id: DPs the profile does not define, values of
    /// the wrong type, numbers outside the declared range, unknown enum labels and colour
    /// strings that do not follow the profile's layout.
    public func validate(_ reported: DataPoints) -> [MappingIssue] {
        var issues: [MappingIssue] = []
        for (id, value) in reported.sorted(by: { $0.key < $1.key }) {
            let key = id.jsonKey
            guard let spec = profile.dataPoint(id) else {
                issues.append(MappingIssue(key: key, problem: .unknownDataPoint))
                continue
            }
            guard value.type == spec.type else {
                issues.append(MappingIssue(key: key, problem: .wrongType(expected: spec.type, found: value.type.name)))
                continue
            }
            switch value {
            case .value(let v):
                if let range = spec.range, !range.contains(v) {
                    issues.append(MappingIssue(key: key, problem: .valueOutOfRange(v, valid: range)))
                }
            case .enumeration(let label):
                if !spec.values.contains(label) {
                    issues.append(MappingIssue(key: key, problem: .unknownEnumLabel(label, valid: spec.values)))
                }
            case .string(let text):
                if let format = spec.colourFormat {
                    do throws(MappingError) {
                        _ = try ColourCodec.decode(text, format: format)
                    } catch {
                        issues.append(MappingIssue(key: key, problem: .invalidColour(error.description)))
                    }
                }
            case .bool, .raw, .bitmap:
                break
            }
        }
        return issues
    }
}
