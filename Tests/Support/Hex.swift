/// Bytes from hex text, for test vectors: upper or lower case, white space ignored.
/// A character that is not a hex digit, or an odd number of digits, is a mistake in the
/// test itself and stops it.
public func hexBytes(_ hex: String) -> [UInt8] {
    let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }.map { scalar -> UInt8 in
        guard let value = UInt8(String(scalar), radix: 16) else {
            preconditionFailure("hexBytes: \"\(scalar)\" is not a hex digit in \(hex)")
        }
        return value
    }
    precondition(digits.count.isMultiple(of: 2), "hexBytes: an odd number of hex digits in \(hex)")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// Lower-case hex text of `bytes`, two digits a byte, for messages and comparisons.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
