import TuyaCore

/// The byte-level RFC 8259 parser behind `CompactJSON.decode`. Every check happens
/// before any allocation sized by the input, recursion is bounded by
/// `CompactJSON.maxDepth`, and every error names the byte offset.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    var depth = 0
    /// Reused for strings that contain escapes.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(WireError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw fail("unexpected \(describe(bytes[index])) after the JSON value")
        }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(WireError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case let byte:
            throw fail("unexpected \(describe(byte)), expected a value")
        }
    }

    /// Steps into the object or array whose opening bracket is at `index`, within the depth
    /// limit. Returns false when `closer` follows at once: the empty container is then read
    /// and left.
    mutating func enterContainer(closedBy closer: UInt8) throws(WireError) -> Bool {
        depth += 1
        guard depth <= CompactJSON.maxDepth else {
            throw fail("nesting deeper than \(CompactJSON.maxDepth)")
        }
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closer else { return true }
        index += 1
        depth -= 1
        return false
    }

    mutating func parseObject() throws(WireError) -> JSONValue {
        guard try enterContainer(closedBy: UInt8(ascii: "}")) else { return .object([:]) }
        // Room for a Tuya object's members (a few DPs) from the start; larger objects grow.
        // A repeated key is reported once the whole object has been read, so that an error
        // earlier in the text is the one named.
        var members = [String: JSONValue](minimumCapacity: 4)
        var duplicateAt: Int?
        repeat {
            try expectKey()
            let keyOffset = index
            let key = try parseString()
            try expectColon()
            let value = try parseValue()
            if members.updateValue(value, forKey: key) != nil, duplicateAt == nil { duplicateAt = keyOffset }
        } while try anotherMember()
        if let duplicateAt { throw .malformedJSON("duplicate object key at byte \(duplicateAt)") }
        depth -= 1
        return .object(members)
    }

    /// Before a member: skips whitespace to the key's opening quote, which must be there.
    mutating func expectKey() throws(WireError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw fail(index < bytes.count ? "expected a string key" : "unexpected end of input in an object")
        }
    }

    /// After a key: the colon, with whitespace on either side.
    mutating func expectColon() throws(WireError) {
        skipWhitespace()
        try expect(UInt8(ascii: ":"), "expected ':' after an object key")
        skipWhitespace()
    }

    /// After a member's value: true at a comma (another member follows), false at the
    /// object's closing brace; both are consumed.
    mutating func anotherMember() throws(WireError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input in an object") }
        let separator = bytes[index]
        index += 1
        if separator == UInt8(ascii: "}") { return false }
        guard separator == UInt8(ascii: ",") else {
            index -= 1
            throw fail("expected ',' or '}' in an object")
        }
        return true
    }

    mutating func parseArray() throws(WireError) -> JSONValue {
        var elements: [JSONValue] = []
        try forEachElement { parser throws(WireError) in elements.append(try parser.parseValue()) }
        return .array(elements)
    }

    /// Reads an array at `index` (its `[`), handing the parser to `element` at each element,
    /// which `element` must consume.
    mutating func forEachElement(_ element: (inout JSONParser) throws(WireError) -> Void) throws(WireError) {
        guard try enterContainer(closedBy: UInt8(ascii: "]")) else { return }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an array") }
            let separator = bytes[index]
            index += 1
            if separator == UInt8(ascii: "]") { break }
            guard separator == UInt8(ascii: ",") else {
                index -= 1
                throw fail("expected ',' or ']' in an array")
            }
        }
        depth -= 1
    }

    // MARK: Helpers

    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ message: String) throws(WireError) {
        guard index < bytes.count, bytes[index] == byte else { throw fail(message) }
        index += 1
    }

    mutating func expectLiteral(_ literal: StaticString) throws(WireError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("invalid literal, expected \(literal)") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw fail("invalid literal, expected \(literal)")
        }
        index += count
    }

    func fail(_ message: String) -> WireError {
        .malformedJSON("\(message) at byte \(index)")
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let digits = String(byte, radix: 16)
        return "byte 0x" + (digits.count == 1 ? "0" + digits : digits)
    }

    func describeEscape(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : describe(byte)
    }
}
