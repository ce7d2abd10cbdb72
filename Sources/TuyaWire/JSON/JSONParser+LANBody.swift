import TuyaCore

/// A Tuya LAN body read for its `dps` alone (`LANDataPoints.dps`): the bytes are checked
/// exactly as `parseDocument` checks them (strict JSON, the depth limit, duplicate keys
/// rejected at every level, the same errors), but only the `dps` member, at the top level
/// or inside an object `data`, becomes values. Every other member is checked and stepped
/// over, so a device's answer costs one dictionary, not one per level.
extension JSONParser {
    /// What a LAN body holds: whether it is an object, its top-level `dps` and the `dps`
    /// of an object `data`, as found.
    struct LANBody {
        var isObject = false
        var dps: JSONValue?
        var dataDPS: JSONValue?
    }

    mutating func parseLANBody() throws(WireError) -> LANBody {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            _ = try parseDocument()
            return LANBody()
        }
        var body = LANBody(isObject: true)
        try forEachMember { parser, key throws(WireError) in
            switch key {
            case "dps":
                body.dps = try parser.parseValue()
            case "data" where parser.bytes[parser.index] == UInt8(ascii: "{"):
                var inner: JSONValue?
                try parser.forEachMember { parser, key throws(WireError) in
                    if key == "dps" { inner = try parser.parseValue() } else { try parser.skipValue() }
                }
                body.dataDPS = inner
            default:
                try parser.skipValue()
            }
        }
        skipWhitespace()
        guard index == bytes.count else {
            throw fail("unexpected \(describe(bytes[index])) after the JSON value")
        }
        return body
    }

    /// Checks one value and steps over it.
    mutating func skipValue() throws(WireError) {
        guard index < bytes.count else { throw fail("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try forEachMember { parser, _ throws(WireError) in try parser.skipValue() }
        case UInt8(ascii: "["):
            try forEachElement { parser throws(WireError) in try parser.skipValue() }
        default:
            // Scalars build no storage apart from long strings, which are rare outside `dps`.
            _ = try parseValue()
        }
    }

    /// Reads an object at `index` (its `{`), handing each key to `value` with the parser at
    /// the member's value, which `value` must consume. Keys are checked for duplicates as
    /// `parseObject` does: the first repeated key is reported once the object has been read.
    mutating func forEachMember(
        _ value: (inout JSONParser, String) throws(WireError) -> Void
    ) throws(WireError) {
        try enterContainer()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        // Keys of the objects being read, innermost last; a large object moves to a set so
        // that hostile input cannot make the check quadratic.
        let base = seenKeys.count
        defer { seenKeys.removeSubrange(base...) }
        var manyKeys: Set<String>?
        var duplicateAt: Int?
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(index < bytes.count ? "expected a string key" : "unexpected end of input in an object")
            }
            let keyOffset = index
            let key = try parseString()
            let repeated: Bool
            if manyKeys != nil {
                repeated = !manyKeys!.insert(key).inserted
            } else {
                repeated = seenKeys[base...].contains(key)
                seenKeys.append(key)
                if seenKeys.count - base > 16 { manyKeys = Set(seenKeys[base...]) }
            }
            if repeated, duplicateAt == nil { duplicateAt = keyOffset }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after an object key")
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input, expected a value") }
            try value(&self, key)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an object") }
            let separator = bytes[index]
            index += 1
            if separator == UInt8(ascii: "}") { break }
            guard separator == UInt8(ascii: ",") else {
                index -= 1
                throw fail("expected ',' or '}' in an object")
            }
        }
        if let duplicateAt { throw .malformedJSON("duplicate object key at byte \(duplicateAt)") }
        depth -= 1
    }
}
