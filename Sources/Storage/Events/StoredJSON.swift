import Foundation
import TuyaCore

/// JSON text for `JSONValue` (event details). TuyaCore's JSON codec lives in TuyaWire,
/// which Storage may not import, so this bridges through Foundation's Codable.
enum StoredJSON {
    static func encode(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(CodableJSON(value))) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) -> JSONValue? {
        (try? JSONDecoder().decode(CodableJSON.self, from: Data(text.utf8)))?.value
    }

    private struct CodableJSON: Codable {
        let value: JSONValue

        init(_ value: JSONValue) { self.value = value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let bool = try? container.decode(Bool.self) {
                value = .bool(bool)
            } else if let integer = try? container.decode(Int64.self) {
                value = .integer(integer)
            } else if let double = try? container.decode(Double.self) {
                value = .double(double)
            } else if let string = try? container.decode(String.self) {
                value = .string(string)
            } else if let array = try? container.decode([CodableJSON].self) {
                value = .array(array.map(\.value))
            } else {
                value = .object(try container.decode([String: CodableJSON].self).mapValues(\.value))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch value {
            case .null: try container.encodeNil()
            case .bool(let b): try container.encode(b)
            case .integer(let i): try container.encode(i)
            // JSON has no NaN or infinity; a detail is for people, so null beats failing the write.
            case .double(let d) where !d.isFinite: try container.encodeNil()
            case .double(let d): try container.encode(d)
            case .string(let s): try container.encode(s)
            case .array(let a): try container.encode(a.map(CodableJSON.init))
            case .object(let o): try container.encode(o.mapValues(CodableJSON.init))
            }
        }
    }
}
