import TuyaCore

/// A typed parameter a route takes, in a path segment or a query item. The raw value is
/// its name in URLs and in `RouteError.validationFailed(field:reason:)`.
public enum RouteParameter: String, CaseIterable, Hashable, Sendable {
    case device
    case type
    case preset
    case minutes
    case session

    /// The form a value must have before the context is consulted.
    public var syntax: ParameterSyntax {
        switch self {
        case .device: .deviceID
        case .type: .maintenanceType
        case .preset: .text(maxBytes: 64)
        case .minutes: .integer(1...240)
        case .session: .sessionID
        }
    }
}

/// The context-free rules for one parameter's value (after percent-decoding).
public enum ParameterSyntax: Hashable, Sendable {
    /// `DeviceID`'s rule: ASCII letters, digits, `_` and `-`, 1–64 characters.
    case deviceID
    /// The profile loader's rule for maintenance types: 1–32 lower-case letters, digits
    /// and `-`, starting with a letter (`refill`, `replace-wick`).
    case maintenanceType
    /// Any UTF-8 text without control characters, 1 to `maxBytes` bytes. Existence is
    /// checked against the context.
    case text(maxBytes: Int)
    /// A decimal whole number without sign or leading zeros, within the range.
    case integer(ClosedRange<Int>)
    /// A timer session id: 1–64 ASCII letters, digits and `-`, starting with a letter or
    /// digit (a UUID in either case fits).
    case sessionID

    /// Checks `value`; the returned reason names the expected form.
    func check(_ value: String) -> RouteError.ValidationReason? {
        let bytes = value.utf8
        switch self {
        case .deviceID:
            return DeviceID.isValid(value)
                ? nil : .badFormat(expected: "a device id: letters, digits, '_' and '-', 1–64 characters")
        case .maintenanceType:
            guard (1...32).contains(bytes.count), let first = bytes.first, ASCII.isLower(first),
                bytes.allSatisfy({ ASCII.isLower($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") })
            else {
                return .badFormat(
                    expected: "a maintenance type: 1–32 lower-case letters, digits and '-', starting with a letter")
            }
            return nil
        case .text(let maxBytes):
            // Links never get here with control characters (percent-decoding refuses them);
            // in-app requests are held to the same rule so that url(for:) stays the inverse.
            guard (1...maxBytes).contains(bytes.count), !Self.containsControlCharacter(bytes) else {
                return .badFormat(expected: "1–\(maxBytes) bytes of text without control characters")
            }
            return nil
        case .integer(let range):
            guard let number = Self.wholeNumber(bytes) else {
                return .badFormat(expected: "a whole number without sign or leading zeros")
            }
            return range.contains(number) ? nil : .outOfRange(range)
        case .sessionID:
            guard (1...64).contains(bytes.count), let first = bytes.first, ASCII.isAlphanumeric(first),
                bytes.allSatisfy({ ASCII.isAlphanumeric($0) || $0 == UInt8(ascii: "-") })
            else {
                return .badFormat(expected: "a session id: 1–64 letters, digits and '-'")
            }
            return nil
        }
    }

    /// C0 controls, DEL, and C1 controls (U+0080–U+009F, encoded C2 80 … C2 9F).
    static func containsControlCharacter(_ bytes: String.UTF8View) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0) { return true }
            previous = byte
        }
        return false
    }

    /// Up to 9 digits, so the value never overflows; `0` alone is allowed, `07` is not.
    static func wholeNumber(_ bytes: String.UTF8View) -> Int? {
        guard (1...9).contains(bytes.count), bytes.allSatisfy(ASCII.isDigit) else { return nil }
        if bytes.count > 1, bytes.first == UInt8(ascii: "0") { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}

/// Byte classes of ASCII, for code that works on UTF-8 bytes.
enum ASCII {
    @inline(__always) static func isLower(_ byte: UInt8) -> Bool { byte &- 0x61 < 26 }
    @inline(__always) static func isUpper(_ byte: UInt8) -> Bool { byte &- 0x41 < 26 }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
    @inline(__always) static func isAlpha(_ byte: UInt8) -> Bool { isLower(byte | 0x20) }
    @inline(__always) static func isAlphanumeric(_ byte: UInt8) -> Bool { isAlpha(byte) || isDigit(byte) }
    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 { isUpper(byte) ? byte | 0x20 : byte }
    /// RFC 3986 `unreserved`: the bytes `url(for:)` writes without percent-encoding.
    @inline(__always) static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }
    @inline(__always) static func hexValue(_ byte: UInt8) -> UInt8? {
        if isDigit(byte) { return byte &- 0x30 }
        let lower = byte | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return nil
    }
}
