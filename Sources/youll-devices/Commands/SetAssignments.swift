import Foundation
import Gateway
import TuyaCore

/// Turns `set` arguments (`state=ON brightness=40 color=hue:30,saturation:80`) into the
/// JSON object published on `<base>/<device>/set`. Pure; errors name the argument.
///
/// Values: whole numbers, decimals, `true`/`false`/`null`, raw JSON (anything starting
/// with `{`, `[` or `"`), the short object form `hue:30,saturation:80` (keys are words,
/// values numbers or booleans), and otherwise the text as a string (`ON`, `night`).
enum SetAssignments {
    static func parse(_ arguments: [String]) throws -> [String: JSONValue] {
        guard !arguments.isEmpty else {
            throw CLIError("nothing to set: give key=value pairs, e.g. state=ON brightness=40")
        }
        var object: [String: JSONValue] = [:]
        for argument in arguments {
            let shown = BridgeText.printable(argument, maximumLength: 60)
            guard let equals = argument.firstIndex(of: "=") else {
                throw CLIError("\"\(shown)\": expected key=value, e.g. brightness=40")
            }
            let key = String(argument[..<equals])
            let text = String(argument[argument.index(after: equals)...])
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "-" })
            else {
                throw CLIError("\"\(shown)\": the key before = must be a field name such as brightness")
            }
            guard object[key] == nil else { throw CLIError("\"\(shown)\": \(key) is given twice") }
            guard !text.isEmpty else {
                throw CLIError("\"\(shown)\": no value after = (write \(key)='\"\"' for an empty string)")
            }
            object[key] = try value(text, argument: shown)
        }
        return object
    }

    static func value(_ text: String, argument: String) throws -> JSONValue {
        if let first = text.first, first == "{" || first == "[" || first == "\"" {
            do {
                return try BridgeJSON.decode(Array(text.utf8))
            } catch {
                throw CLIError("\"\(argument)\": the value is not valid JSON (\(error))")
            }
        }
        if let scalar = scalar(text) { return scalar }
        if let object = shortObject(text) { return object }
        return .string(text)
    }

    /// `true`, `false`, `null`, a whole number or a finite decimal; `nil` for anything else.
    static func scalar(_ text: String) -> JSONValue? {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        let digits = text.drop { $0 == "-" || $0 == "+" }
        guard let first = digits.first, first.isASCII, first.isNumber || first == "." else { return nil }
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
        if let integer = Int64(text) { return .integer(integer) }
        if let double = Double(text), double.isFinite { return .double(double) }
        return nil
    }

    /// `hue:30,saturation:80` → `{"hue":30,"saturation":80}`, only when every part is a
    /// word key with a number or boolean value; `scene=night:party` stays a string.
    static func shortObject(_ text: String) -> JSONValue? {
        var members: [String: JSONValue] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard pieces.count == 2 else { return nil }
            let key = pieces[0].trimmingCharacters(in: .whitespaces)
            guard let start = key.first, start.isLetter, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                members[key] == nil,
                let value = scalar(pieces[1].trimmingCharacters(in: .whitespaces))
            else { return nil }
            members[key] = value
        }
        return .object(members)
    }
}
