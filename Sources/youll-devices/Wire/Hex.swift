import Foundation

/// Hex text ⇄ bytes for the `wire` tools. Accepts upper or lower case, an optional `0x`,
/// and spaces or colons between bytes, so a capture can be pasted as it is.
enum Hex {
    /// `what` names the option (`--iv`: a bad value is a usage mistake, exit 64) or the input
    /// (`HEX`: bad data, exit 1).
    static func decode(_ text: String, what: String) throws -> [UInt8] {
        let usage = what.hasPrefix("--")
        func failure(_ message: String) -> CLIError { usage ? .usage(message) : CLIError(message) }
        var digits = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.utf8.count / 2)
        var high: UInt8?
        for (offset, unit) in digits.utf8.enumerated() {
            if unit == 0x20 || unit == 0x3A || unit == 0x09 {
                guard high == nil else { throw failure("\(what): separator inside a byte at position \(offset)") }
                continue
            }
            guard let nibble = nibble(unit) else {
                throw failure("\(what): not a hex digit at position \(offset)")
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { throw failure("\(what): odd number of hex digits") }
        guard !bytes.isEmpty else { throw failure("\(what): no bytes given") }
        return bytes
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ unit: UInt8) -> UInt8? {
        switch unit {
        case 0x30...0x39: unit - 0x30
        case 0x41...0x46: unit - 0x41 + 10
        case 0x61...0x66: unit - 0x61 + 10
        default: nil
        }
    }
}
