/// One thing wrong with a reported data point. Reports come from devices and are
/// untrusted, so problems are collected and the rest of the report is still used,
/// instead of failing the whole report.
public struct MappingIssue: Hashable, Sendable, CustomStringConvertible {
    /// The JSON key or DP id as it arrived (`"20"`, `"abc"`).
    public var key: String
    public var problem: Problem

    public enum Problem: Hashable, Sendable {
        /// The key is not a decimal DP id 1...255 (protocol/TUYA.md §3.3).
        case notADataPointID
        /// `null`, an object, an array or a fractional number: no DP type carries these.
        case unsupportedJSON(String)
        /// An integer a Tuya value (signed 32-bit) or bitmap (32 bits) cannot hold.
        case integerOutOfRange(Int64)
        /// The value's type differs from the profile's type for this DP.
        case wrongType(expected: DataPointType, found: String)
        /// An enum label the profile does not list.
        case unknownEnumLabel(String, valid: [String])
        /// A raw DP whose string is not base64.
        case invalidBase64
        /// The profile does not define this DP.
        case unknownDataPoint
        /// A value outside the profile's range for this DP.
        case valueOutOfRange(Int32, valid: ClosedRange<Int32>)
        /// A colour string that does not follow the profile's layout.
        case invalidColour(String)
    }

    public init(key: String, problem: Problem) {
        self.key = key
        self.problem = problem
    }

    public var description: String {
        let shownKey = "'\(key.prefix(32))'"
        return switch problem {
        case .notADataPointID: "\(shownKey) is not a data point id (1...255)"
        case .unsupportedJSON(let kind): "DP \(shownKey): \(kind) is not a data point value"
        case .integerOutOfRange(let n): "DP \(shownKey): \(n) does not fit in 32 bits"
        case .wrongType(let expected, let found): "DP \(shownKey): expected \(expected), got \(found)"
        case .unknownEnumLabel(let label, let valid):
            "DP \(shownKey): '\(label.prefix(32))' is not one of \(valid.joined(separator: ", "))"
        case .invalidBase64: "DP \(shownKey): raw value is not base64"
        case .unknownDataPoint: "DP \(shownKey) is not in the profile"
        case .valueOutOfRange(let v, let valid):
            "DP \(shownKey): \(v) is outside \(valid.lowerBound)...\(valid.upperBound)"
        case .invalidColour(let reason): "DP \(shownKey): \(reason)"
        }
    }
}
