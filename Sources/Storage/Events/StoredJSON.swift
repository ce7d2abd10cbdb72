import Foundation
import TuyaCore

/// JSON text for `JSONValue` (event details). TuyaCore's JSON codec lives in TuyaWire,
/// which Storage may not import, so this goes through `JSONValue`'s `Codable`.
enum StoredJSON {
    static func encode(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
