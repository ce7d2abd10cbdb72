/// Why a typed command could not be turned into data point writes, or a colour string
/// could not be read. Every message names the profile, the field or capability and
/// what would be accepted, so a user can fix the command or the profile.
public enum MappingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The command sets a field for a capability the product does not have.
    case unsupported(field: String, capability: Capability, profile: String)
    /// A numeric field is outside what the product accepts.
    case outOfRange(field: String, value: Int, valid: ClosedRange<Int>, profile: String)
    /// A label (mist mode, timer, scene) is not one the profile lists.
    case unknownLabel(field: String, label: String, valid: [String], profile: String)
    /// The capability is bound to a data point the device only reports.
    case readOnly(field: String, capability: Capability, dataPoint: DataPointID, profile: String)
    /// Two fields of one command ask for different things on the same data point or mode.
    case conflictingFields([String], profile: String)
    /// A light command sent to a diffuser profile or the other way round.
    case wrongDeviceKind(command: String, category: DeviceCategory, profile: String)
    /// The profile binds a capability to a data point it does not define, or of the wrong type.
    case profileIncomplete(capability: Capability, reason: String, profile: String)
    /// A colour hex string that does not follow the layout (protocol/TUYA.md §4.1).
    case invalidColour(hex: String, format: ColourFormat, reason: String)

    /// The name a user types for a command field: the bridge API's and the CLI's
    /// (`color_temp`, `mist_mode`), not the Swift property's (issue 14 item 15).
    public static func userName(of field: String) -> String {
        switch field {
        case "power": "state"
        case "colorTemperature": "color_temp"
        case "colour": "color"
        case "mistMode": "mist_mode"
        case "ledPower": "led"
        case "ledBrightness": "led_brightness"
        case "ledColour": "led_color"
        default: field
        }
    }

    public var description: String {
        switch self {
        case .unsupported(let field, let capability, let profile):
            "\(Self.userName(of: field)): profile '\(profile)' has no '\(capability.rawValue)' capability; leave the field unset"
        case .outOfRange(let field, let value, let valid, let profile):
            "\(Self.userName(of: field)) \(value) is out of range for profile '\(profile)'; use \(valid.lowerBound)...\(valid.upperBound)"
        case .unknownLabel(let field, let label, let valid, let profile):
            "\(Self.userName(of: field)) '\(label)' is not known to profile '\(profile)'; use one of: "
                + (valid.isEmpty ? "(none defined)" : valid.joined(separator: ", "))
        case .readOnly(let field, let capability, let dataPoint, let profile):
            "\(Self.userName(of: field)): '\(capability.rawValue)' is bound to read-only \(dataPoint) in profile '\(profile)'; it cannot be set"
        case .conflictingFields(let fields, let profile):
            "fields \(fields.map(Self.userName(of:)).joined(separator: " and ")) conflict for profile '\(profile)'; send them in separate commands"
        case .wrongDeviceKind(let command, let category, let profile):
            "a \(command) command cannot drive profile '\(profile)' (category \(category.rawValue))"
        case .profileIncomplete(let capability, let reason, let profile):
            "profile '\(profile)' binds '\(capability.rawValue)' badly: \(reason); fix the profile"
        case .invalidColour(let hex, let format, let reason):
            "colour '\(hex.prefix(32))' is not valid \(format.rawValue): \(reason)"
        }
    }
}
