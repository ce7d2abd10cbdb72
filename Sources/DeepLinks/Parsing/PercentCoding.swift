import TuyaCore

/// Percent-decoding of already-scanned ranges (every `%` is known to start a valid
/// triplet) and the percent-encoding `url(for:)` writes.
enum PercentCoding {
    /// The decoded text of `range`: UTF-8 without control characters (C0, DEL and C1), or
    /// a `malformed` error naming where.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(RouteError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard slice.contains(UInt8(ascii: "%")) else {
            return String(decoding: slice, as: UTF8.self)  // printable ASCII, screened by the parser
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(slice.count)
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 2 < range.upperBound, let high = ASCII.hexValue(bytes[index + 1]),
                let low = ASCII.hexValue(bytes[index + 2])
            else { throw .malformed(.badPercentEncoding(offset: index)) }
            let value = high << 4 | low
            if value < 0x20 || value == 0x7F { throw .malformed(.controlCharacter(offset: index)) }
            decoded.append(value)
            index += 3
        }
        return try decoded.withUnsafeBufferPointer { (buffer) throws(RouteError) -> String in
            var position = 0
            while position < buffer.count {
                guard let length = UTF8Sequence.length(buffer, at: position) else {
                    throw .malformed(.notUTF8(offset: range.lowerBound))
                }
                // U+0080–U+009F (C1 controls) encode as C2 80 … C2 9F.
                if length == 2, buffer[position] == 0xC2, buffer[position + 1] < 0xA0 {
                    throw .malformed(.controlCharacter(offset: range.lowerBound))
                }
                position += length
            }
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// Whether `range` decodes to exactly `text`; `foldingCase` compares ASCII letters
    /// without regard to case (host names).
    static func decoded(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, equals text: String, foldingCase: Bool
    ) -> Bool {
        var index = range.lowerBound
        for expected in text.utf8 {
            guard index < range.upperBound else { return false }
            var byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < range.upperBound, let high = ASCII.hexValue(bytes[index + 1]),
                    let low = ASCII.hexValue(bytes[index + 2])
                else { return false }
                byte = high << 4 | low
                index += 3
            } else {
                index += 1
            }
            if foldingCase ? ASCII.lowercased(byte) != ASCII.lowercased(expected) : byte != expected { return false }
        }
        return index == range.upperBound
    }

    /// Whether `range` is exactly `text`, byte for byte (query item names are literal).
    static func raw(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, equals text: String) -> Bool {
        var index = range.lowerBound
        for expected in text.utf8 {
            guard index < range.upperBound, bytes[index] == expected else { return false }
            index += 1
        }
        return index == range.upperBound
    }

    /// Appends `text` with every byte outside RFC 3986 `unreserved` as `%XX`.
    static func encode(_ text: String, into output: inout [UInt8]) {
        let digits: StaticString = "0123456789ABCDEF"
        for byte in text.utf8 {
            if ASCII.isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                digits.withUTF8Buffer { hex in
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0x0F)])
                }
            }
        }
    }
}
