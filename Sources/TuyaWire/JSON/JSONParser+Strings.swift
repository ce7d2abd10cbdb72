import TuyaCore

/// JSON strings: escapes, surrogate pairs and UTF-8 validation, without a copy when a
/// string has no escape.
extension JSONParser {
    /// Reads a string starting at its opening quote. Plain runs are validated and
    /// copied in one go; only strings with escapes go through `scratch`.
    mutating func parseString() throws(WireError) -> String {
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

    mutating func parseEscape() throws(WireError) {
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

    mutating func parseHex4() throws(WireError) -> UInt32 {
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

    mutating func appendUTF8(_ scalar: UInt32) {
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
    mutating func skipUTF8Sequence() throws(WireError) {
        let lead = bytes[index]
        guard let (length, secondRange) = UTF8Sequence.shape(lead: lead) else {
            throw fail("invalid UTF-8 lead byte \(describe(lead))")
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
}
