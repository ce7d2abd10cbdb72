import TuyaCore

/// The byte writer behind `CompactJSON.encode`: appends straight into one buffer,
/// copying runs of plain string bytes in bulk and formatting integers on the stack.
enum JSONWriter {
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null:
            appendASCII("null", to: &out)
        case .bool(let flag):
            appendASCII(flag ? "true" : "false", to: &out)
        case .integer(let number):
            writeInteger(number, into: &out)
        case .double(let number):
            writeDouble(number, into: &out)
        case .string(let string):
            writeString(string, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members, into: &out)
        }
    }

    static func writeObject(_ members: [String: JSONValue], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if members.count == 1, let member = members.first {
            writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            write(member.value, into: &out)
        } else if !members.isEmpty {
            var first = true
            for key in members.keys.sorted(by: keyPrecedes) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(members[key].unsafelyUnwrapped, into: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The key order documented on `CompactJSON`: DP-id-like digit strings first, by
    /// numeric value, then everything else in `String` order. A strict total order on
    /// the distinct keys of a dictionary.
    static func keyPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        let lhsDigits = isDigits(lhs), rhsDigits = isDigits(rhs)
        switch (lhsDigits, rhsDigits) {
        case (true, false): return true
        case (false, true): return false
        case (true, true):
            let lhsCount = lhs.utf8.count, rhsCount = rhs.utf8.count
            if lhsCount != rhsCount { return lhsCount < rhsCount }
            return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        case (false, false): return lhs < rhs
        }
    }

    private static func isDigits(_ key: String) -> Bool {
        var any = false
        for byte in key.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
            any = true
        }
        return any
    }

    static func writeInteger(_ number: Int64, into out: inout [UInt8]) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        // 20 digits hold UInt64.max; written back to front.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = 20
            repeat {
                index -= 1
                buffer[index] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude != 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index..<20]))
        }
    }

    /// Swift's `description` is the shortest text that reads back as the same `Double`,
    /// and its forms (`0.5`, `1000.0`, `1e-05`, `1e+20`) are all valid JSON numbers.
    static func writeDouble(_ number: Double, into out: inout [UInt8]) {
        guard number.isFinite else {
            appendASCII("null", to: &out)
            return
        }
        out.append(contentsOf: number.description.utf8)
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                if runStart < index {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                appendEscape(for: byte, to: &out)
                index += 1
                runStart = index
            }
            if runStart < count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(for byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            let hex = hexDigits.utf8Start
            out.append(UInt8(ascii: "u"))
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "0"))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
    }

    private static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
