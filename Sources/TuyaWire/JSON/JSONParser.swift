import TuyaCore

/// The byte-level RFC 8259 parser behind `CompactJSON.decode`. Every check happens
/// before any allocation sized by the input, recursion is bounded by
/// `CompactJSON.maxDepth`, and every error names the byte offset.
struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    /// Reused for strings that contain escapes.
    private var scratch: [UInt8] = []
    /// Object members not yet moved into their dictionary, innermost object last.
    private var pendingMembers: [PendingMember] = []

    private struct PendingMember {
        let key: String
        let value: JSONValue
        let offset: Int
    }

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

    private mutating func parseValue() throws(WireError) -> JSONValue {
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

    private mutating func enterContainer() throws(WireError) {
        depth += 1
        guard depth <= CompactJSON.maxDepth else {
            throw fail("nesting deeper than \(CompactJSON.maxDepth)")
        }
        index += 1
    }

    private mutating func parseObject() throws(WireError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        // Members collect on a stack shared by all nesting levels, so the dictionary is
        // allocated once at its final size instead of growing key by key.
        let base = pendingMembers.count
        defer { pendingMembers.removeSubrange(base...) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(index < bytes.count ? "expected a string key" : "unexpected end of input in an object")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after an object key")
            skipWhitespace()
            let value = try parseValue()
            pendingMembers.append(PendingMember(key: key, value: value, offset: keyOffset))
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
        var members = [String: JSONValue](minimumCapacity: pendingMembers.count - base)
        for member in pendingMembers[base...] where members.updateValue(member.value, forKey: member.key) != nil {
            throw .malformedJSON("duplicate object key at byte \(member.offset)")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(WireError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
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
        return .array(elements)
    }

    // MARK: Strings

    /// Reads a string starting at its opening quote. Plain runs are validated and
    /// copied in one go; only strings with escapes go through `scratch`.
    private mutating func parseString() throws(WireError) -> String {
        index += 1
        let start = index
        var hasEscape = false
        scan: while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                break scan
            case UInt8(ascii: "\\"):
                hasEscape = true
                break scan
            case 0..<0x20:
                throw fail("unescaped control character \(describe(byte)) in a string")
            case 0x20..<0x80:
                index += 1
            default:
                try skipUTF8Sequence()
            }
        }
        if !hasEscape {
            let string = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            return string
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw fail("unescaped control character \(describe(byte)) in a string")
            case 0x20..<0x80:
                scratch.append(byte)
                index += 1
            default:
                let sequenceStart = index
                try skipUTF8Sequence()
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[sequenceStart..<index]))
            }
        }
    }

    private mutating func parseEscape() throws(WireError) {
        let escapeOffset = index
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xDC00...0xDFFF).contains(scalar) {
                throw .malformedJSON("lone low surrogate \\u escape at byte \(escapeOffset)")
            }
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw .malformedJSON("lone high surrogate \\u escape at byte \(escapeOffset)")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw .malformedJSON("high surrogate not followed by a low surrogate at byte \(escapeOffset)")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar)
        default:
            throw .malformedJSON("invalid escape \\\(describeEscape(byte)) at byte \(escapeOffset)")
        }
    }

    private mutating func parseHex4() throws(WireError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit \(describe(byte)) in a \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    /// Steps over one multi-byte UTF-8 sequence, accepting only the well-formed
    /// sequences of Unicode Table 3-7: no overlong forms, no UTF-16 surrogates,
    /// nothing above U+10FFFF.
    private mutating func skipUTF8Sequence() throws(WireError) {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw fail("invalid UTF-8 lead byte \(describe(lead))")
        }
        guard bytes.count - index >= length else { throw fail("truncated UTF-8 sequence") }
        guard secondRange.contains(bytes[index + 1]) else { throw fail("invalid UTF-8 sequence") }
        var offset = 2
        while offset < length {
            guard bytes[index + offset] & 0xC0 == 0x80 else { throw fail("invalid UTF-8 sequence") }
            offset += 1
        }
        index += length
    }

    // MARK: Numbers

    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(WireError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit") }
        // Up to 19 significant digits, exact in UInt64; beyond that only the count matters.
        var mantissa: UInt64 = 0
        var digitCount = 0
        var droppedDigits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero in a number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index], into: &mantissa, count: &digitCount, dropped: &droppedDigits)
                index += 1
            }
        }
        let integerOverflow = droppedDigits > 0
        var isInteger = true
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) {
                let before = droppedDigits
                accumulate(bytes[index], into: &mantissa, count: &digitCount, dropped: &droppedDigits)
                if droppedDigits == before { fractionDigits += 1 }
                index += 1
            }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit in an exponent") }
            while index < bytes.count, isDigit(bytes[index]) {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger && !integerOverflow {
            if negative {
                if mantissa <= UInt64(Int64.max) + 1 { return .integer(Int64(truncatingIfNeeded: 0 &- mantissa)) }
            } else if mantissa <= UInt64(Int64.max) {
                return .integer(Int64(mantissa))
            }
        }
        // Clinger's fast path: both the mantissa and the power of ten are exact doubles,
        // so one IEEE multiplication or division is correctly rounded.
        let scale = exponent - fractionDigits
        if droppedDigits == 0, mantissa < (1 << 53), scale >= -22, scale <= 22 {
            var value = Double(mantissa)
            value = scale < 0 ? value / Self.exactPowersOfTen[-scale] : value * Self.exactPowersOfTen[scale]
            return .double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw .malformedJSON("number out of range at byte \(start)")
        }
        return .double(value)
    }

    private func accumulate(_ digit: UInt8, into mantissa: inout UInt64, count: inout Int, dropped: inout Int) {
        if count < 19 {
            mantissa = mantissa * 10 + UInt64(digit - UInt8(ascii: "0"))
            if mantissa != 0 { count += 1 }
        } else {
            dropped += 1
        }
    }

    // MARK: Helpers

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(WireError) {
        guard index < bytes.count, bytes[index] == byte else { throw fail(message) }
        index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(WireError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("invalid literal, expected \(literal)") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw fail("invalid literal, expected \(literal)")
        }
        index += count
    }

    private func fail(_ message: String) -> WireError {
        .malformedJSON("\(message) at byte \(index)")
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let digits = String(byte, radix: 16)
        return "byte 0x" + (digits.count == 1 ? "0" + digits : digits)
    }

    private func describeEscape(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : describe(byte)
    }
}
