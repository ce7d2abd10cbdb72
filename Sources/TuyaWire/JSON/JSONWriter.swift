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
            writeMember(key: member.key, value: member.value, into: &out)
        } else if !members.isEmpty {
            var entries: [SortEntry] = []
            entries.reserveCapacity(members.count)
            var index = members.startIndex
            while index != members.endIndex {
                entries.append(SortEntry(index: index, key: members[index].key))
                members.formIndex(after: &index)
            }
            entries.sort { lhs, rhs in SortEntry.precedes(lhs, rhs, in: members) }
            var first = true
            for entry in entries {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                let member = members[entry.index]
                writeMember(key: member.key, value: member.value, into: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func writeMember(key: String, value: JSONValue, into out: inout [UInt8]) {
        writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        write(value, into: &out)
    }

    /// An object member with its place in the key order documented on `CompactJSON`
    /// worked out once: digit-only keys (Tuya DP ids) first by numeric value, i.e. shorter
    /// first and then byte order, then every other key in `String` order. A strict total
    /// order on the distinct keys of a dictionary.
    /// Holds a dictionary index rather than the key and value, so sorting moves plain
    /// integers instead of retaining strings.
    private struct SortEntry {
        let index: [String: JSONValue].Index
        /// 0 for digit keys of up to 19 digits, 1 for longer digit keys, 2 for the rest.
        let rank: UInt8
        let length: Int
        let number: UInt64

        init(index: [String: JSONValue].Index, key: String) {
            self.index = index
            var number: UInt64 = 0
            var length = 0
            var digitsOnly = true
            for byte in key.utf8 {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    digitsOnly = false
                    break
                }
                if length < 19 { number = number * 10 + UInt64(byte - UInt8(ascii: "0")) }
                length += 1
            }
            self.length = length
            self.number = number
            rank = !digitsOnly || length == 0 ? 2 : length <= 19 ? 0 : 1
        }

        static func precedes(_ lhs: SortEntry, _ rhs: SortEntry, in members: [String: JSONValue]) -> Bool {
            if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
            switch lhs.rank {
            case 0:
                return lhs.length != rhs.length ? lhs.length < rhs.length : lhs.number < rhs.number
            case 1:
                if lhs.length != rhs.length { return lhs.length < rhs.length }
                return members[lhs.index].key.utf8.lexicographicallyPrecedes(members[rhs.index].key.utf8)
            default:
                return members[lhs.index].key < members[rhs.index].key
            }
        }
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

    static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
