import Foundation
import TuyaCore
import TuyaWire

/// JSON for the bridge API's payloads: `Codable` payload types become `JSONValue` through
/// `JSONValueEncoder` and leave as `CompactJSON` bytes; payloads are read with `CompactJSON`
/// like every other payload the gateway handles.
///
/// `CompactJSON` caps input at 64 KiB, which a Tuya frame never reaches but a retained
/// `bridge/devices` of a few hundred devices does; larger payloads (up to
/// `maximumSize`) are read with `JSONDecoder` into the same `JSONValue`.
public enum BridgeJSON {
    /// Far above `bridge/devices` for thousands of devices; anything larger is refused.
    public static let maximumSize = 16 * 1024 * 1024

    /// Why a payload is not JSON, for error messages.
    public struct DecodingFailure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func decode(_ bytes: [UInt8]) throws(DecodingFailure) -> JSONValue {
        if bytes.count <= CompactJSON.maxInputSize {
            do {
                return try CompactJSON.decode(bytes)
            } catch {
                throw DecodingFailure(description: "\(error)")
            }
        }
        guard bytes.count <= maximumSize else {
            throw DecodingFailure(description: "\(bytes.count) bytes is larger than the \(maximumSize)-byte limit")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw DecodingFailure(description: "invalid JSON in a \(bytes.count)-byte payload")
        }
    }

    /// Compact text of `value`, for messages and `--json` output.
    public static func text(_ value: JSONValue) -> String {
        String(decoding: CompactJSON.encode(value), as: UTF8.self)
    }

    /// "an array", "a string", … for messages about a value of the wrong kind.
    public static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A `Codable` payload as the value the bridge publishes. Every payload type encodes
    /// (its fields are strings, numbers and lists); a failure is a programming error.
    public static func value(_ payload: some Encodable) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(payload)
        } catch {
            assertionFailure("\(type(of: payload)) does not encode: \(error)")
            return .null
        }
    }

    /// A `Codable` payload's members, for a response's or an event's `data`.
    public static func object(_ payload: some Encodable) -> [String: JSONValue] {
        value(payload).objectValue ?? [:]
    }
}
