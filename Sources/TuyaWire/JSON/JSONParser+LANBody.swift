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
            if key.is("dps", in: parser.bytes) {
                body.dps = try parser.parseValue()
            } else if key.is("data", in: parser.bytes), parser.bytes[parser.index] == UInt8(ascii: "{") {
                var inner: JSONValue?
                try parser.forEachMember { parser, key throws(WireError) in
                    if key.is("dps", in: parser.bytes) {
                        inner = try parser.parseValue()
                    } else {
                        try parser.skipValue()
                    }
                }
                body.dataDPS = inner
            } else {
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
}
