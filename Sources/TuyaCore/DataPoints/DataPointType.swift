/// The six Tuya data point types, with the type codes used on BLE and Zigbee
/// (protocol/TUYA.md §1.8).
public enum DataPointType: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case raw = 0
    case bool = 1
    case value = 2
    case string = 3
    case enumeration = 4
    case bitmap = 5

    /// The name used in profiles (`devices/*.yaml`).
    public var name: String {
        switch self {
        case .raw: "raw"
        case .bool: "bool"
        case .value: "value"
        case .string: "string"
        case .enumeration: "enum"
        case .bitmap: "bitmap"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public var description: String { name }
}
