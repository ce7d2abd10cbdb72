import Foundation

/// Converts the `dps` object of MQTT and LAN JSON bodies (protocol/TUYA.md §2.6, §3.3)
/// to typed data points and back. Keys are DP ids as decimal strings; values use the
/// cloud/local form: bool, integer, enum label string, hex or plain string, and raw DPs
/// as base64 text.
///
/// The body comes from a device or the network, so decoding never throws and never
/// traps: anything it cannot read becomes a `MappingIssue` and the other DPs are kept.
public enum DataPointJSON {
    /// Typed values for a `dps` object. With a profile, the DP's declared type decides
    /// the case (bitmap, enum, raw); without one, or for a DP the profile does not know,
    /// the JSON type decides (bool → `.bool`, integer → `.value`, string → `.string`).
    /// Issues are sorted by key.
    public static func decode(
        _ dps: [String: JSONValue], profile: DeviceProfile?
    ) -> (values: DataPoints, issues: [MappingIssue]) {
        var values: DataPoints = [:]
        var issues: [MappingIssue] = []
        for key in dps.keys.sorted() {
            guard let json = dps[key] else { continue }
            guard let id = DataPointID(jsonKey: key) else {
                issues.append(MappingIssue(key: key, problem: .notADataPointID))
                continue
            }
            switch decodeValue(json, spec: profile?.dataPoint(id)) {
            case .value(let value): values[id] = value
            case .issue(let problem): issues.append(MappingIssue(key: key, problem: problem))
            }
        }
        return (values, issues)
    }

    /// The `dps` object for a batch of writes: enums as their label, raw as base64,
    /// bitmaps as integers.
    public static func encode(_ values: DataPoints) -> [String: JSONValue] {
        var dps: [String: JSONValue] = [:]
        for (id, value) in values {
            dps[id.jsonKey] =
                switch value {
                case .bool(let b): .bool(b)
                case .value(let v): .integer(Int64(v))
                case .bitmap(let m): .integer(Int64(m))
                case .string(let s): .string(s)
                case .enumeration(let label): .string(label)
                case .raw(let bytes): .string(Data(bytes).base64EncodedString())
                }
        }
        return dps
    }

    /// One DP's outcome: a typed value or the reason there is none.
    private enum Decoded {
        case value(DPValue)
        case issue(MappingIssue.Problem)
    }

    private static func decodeValue(_ json: JSONValue, spec: DataPointSpec?) -> Decoded {
        switch json {
        case .null: return .issue(.unsupportedJSON("null"))
        case .array: return .issue(.unsupportedJSON("an array"))
        case .object: return .issue(.unsupportedJSON("an object"))
        case .bool(let b):
            guard let spec, spec.type != .bool else { return .value(.bool(b)) }
            return .issue(.wrongType(expected: spec.type, found: "bool"))
        case .integer, .double:
            guard let n = json.int64Value else { return .issue(.unsupportedJSON("a fractional number")) }
            return decodeInteger(n, spec: spec)
        case .string(let s):
            return decodeString(s, spec: spec)
        }
    }

    private static func decodeInteger(_ n: Int64, spec: DataPointSpec?) -> Decoded {
        switch spec?.type {
        case nil, .value:
            guard let v = Int32(exactly: n) else { return .issue(.integerOutOfRange(n)) }
            return .value(.value(v))
        case .bitmap:
            guard let m = UInt32(exactly: n) else { return .issue(.integerOutOfRange(n)) }
            return .value(.bitmap(m))
        case .enumeration:
            // Legacy diffusers label enums with digits ("0"…"3", TUYA.md §4.2); some firmware
            // then sends the bare number. Accept it only when it names a listed label.
            let label = String(n)
            guard let spec, spec.values.contains(label) else {
                return .issue(.wrongType(expected: .enumeration, found: "integer \(n)"))
            }
            return .value(.enumeration(label))
        case .some(let type):
            return .issue(.wrongType(expected: type, found: "integer"))
        }
    }

    private static func decodeString(_ s: String, spec: DataPointSpec?) -> Decoded {
        switch spec?.type {
        case nil, .string:
            return .value(.string(s))
        case .enumeration:
            guard let spec, spec.values.contains(s) else {
                return .issue(.unknownEnumLabel(s, valid: spec?.values ?? []))
            }
            return .value(.enumeration(s))
        case .raw:
            guard let data = Data(base64Encoded: s) else { return .issue(.invalidBase64) }
            return .value(.raw(Array(data)))
        case .some(let type):
            return .issue(.wrongType(expected: type, found: "string"))
        }
    }
}
