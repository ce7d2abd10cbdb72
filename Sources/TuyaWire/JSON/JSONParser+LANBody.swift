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
        // Plain ASCII keys are compared as bytes of the input, kept on the stack; at the
        // first other key, or past `PlainKeys.capacity`, a set of the keys takes over, so that
        // hostile input cannot make the check quadratic.
        var plain = PlainKeys()
        var keys: Set<String>?
        var duplicateAt: Int?
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(index < bytes.count ? "expected a string key" : "unexpected end of input in an object")
            }
            let keyOffset = index
            let key = try parseString()
            let repeated: Bool
            if keys == nil, lastStringIsPlainASCII, plain.count < PlainKeys.capacity {
                let range = (keyOffset + 1)..<(index - 1)
                repeated = plain.contains(range, in: bytes)
                plain.append(range)
            } else {
                if keys == nil { keys = plain.strings(in: bytes) }
                repeated = !keys!.insert(key).inserted
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

/// The keys of one object read so far, as byte ranges of the input: plain ASCII keys (no
/// escapes), which are equal exactly when their bytes are. Up to `capacity` of them, in
/// place, so that reading an object's members allocates nothing for the duplicate check.
struct PlainKeys {
    static let capacity = 8
    private(set) var count = 0
    private var starts: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var ends: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    private func range(_ position: Int) -> Range<Int> {
        let start = withUnsafeBytes(of: starts) { $0.load(fromByteOffset: position * 8, as: Int.self) }
        let end = withUnsafeBytes(of: ends) { $0.load(fromByteOffset: position * 8, as: Int.self) }
        return start..<end
    }

    mutating func append(_ range: Range<Int>) {
        precondition(count < Self.capacity, "PlainKeys holds \(Self.capacity) keys")
        withUnsafeMutableBytes(of: &starts) {
            $0.storeBytes(of: range.lowerBound, toByteOffset: count * 8, as: Int.self)
        }
        withUnsafeMutableBytes(of: &ends) { $0.storeBytes(of: range.upperBound, toByteOffset: count * 8, as: Int.self) }
        count += 1
    }

    /// Whether a key already held has the bytes of `bytes[range]`.
    func contains(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
        for position in 0..<count {
            let held = self.range(position)
            guard held.count == range.count else { continue }
            var same = true
            for offset in 0..<range.count where bytes[held.lowerBound + offset] != bytes[range.lowerBound + offset] {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    /// The keys held, as strings.
    func strings(in bytes: UnsafeRawBufferPointer) -> Set<String> {
        var keys = Set<String>(minimumCapacity: count * 2)
        for position in 0..<count {
            keys.insert(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range(position)]), as: UTF8.self))
        }
        return keys
    }
}
