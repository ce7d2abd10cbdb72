import TuyaCore

/// JSON numbers: exact integers, Clinger's fast path for doubles, and the standard
/// library's conversion for the rest.
extension JSONParser {
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func parseNumber() throws(WireError) -> JSONValue {
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
            exponent = try parseExponent()
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

    /// The exponent after its `e` or `E`: an optional sign and at least one digit; its
    /// size stops growing at a million (far past any double's range).
    mutating func parseExponent() throws(WireError) -> Int {
        index += 1
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit in an exponent") }
        var exponent = 0
        while index < bytes.count, isDigit(bytes[index]) {
            if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
            index += 1
        }
        return negative ? -exponent : exponent
    }

    func accumulate(_ digit: UInt8, into mantissa: inout UInt64, count: inout Int, dropped: inout Int) {
        if count < 19 {
            mantissa = mantissa * 10 + UInt64(digit - UInt8(ascii: "0"))
            if mantissa != 0 { count += 1 }
        } else {
            dropped += 1
        }
    }
}
