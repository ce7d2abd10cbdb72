import Foundation

/// A device's friendly name, used in its topics (`<base>/<name>`): 1–64 characters and at
/// most 128 bytes of UTF-8, none of `/`, `+`, `#`, no control, invisible (format, line or
/// paragraph separator, unassigned) or bidi-override characters, no surrounding spaces, and
/// not `bridge`.
public struct DeviceName: Hashable, Sendable, CustomStringConvertible {
    public static let maximumCharacters = 64
    public static let maximumBytes = 128

    public let text: String

    public init(field: String = "name", text: String) throws(BridgePayloadError) {
        guard !text.isEmpty, text.count <= Self.maximumCharacters else {
            throw BridgePayloadError(field: field, reason: "must be 1 to \(Self.maximumCharacters) characters")
        }
        guard text.utf8.count <= Self.maximumBytes else {
            throw BridgePayloadError(
                field: field, reason: "is \(text.utf8.count) bytes of UTF-8; names are limited to \(Self.maximumBytes)")
        }
        guard text.trimmingCharacters(in: .whitespaces) == text else {
            throw BridgePayloadError(field: field, reason: "must not start or end with a space")
        }
        if let bad = text.unicodeScalars.first(where: { "/+#".unicodeScalars.contains($0) || Self.isHidden($0) }) {
            let shown = Self.isHidden(bad) ? Self.describe(bad) : "'\(bad)'"
            throw BridgePayloadError(field: field, reason: "must not contain \(shown) (names are MQTT topic levels)")
        }
        guard text.lowercased() != "bridge" else {
            throw BridgePayloadError(field: field, reason: "\"bridge\" is reserved for the bridge's own topics")
        }
        self.text = text
    }

    public var description: String { text }

    /// What the name looks like, for telling look-alikes apart: lower case, with the Cyrillic
    /// and Greek letters that look like Latin ones (е, а, о, р, с, у, х, і, ο, α, …) read as
    /// those. Two different names with one skeleton look the same on a screen.
    public var skeleton: String {
        String(String.UnicodeScalarView(text.lowercased().unicodeScalars.map { Self.latinLookalike[$0] ?? $0 }))
    }

    /// Whether the name mixes Latin letters with Cyrillic or Greek ones (`bridgе`).
    public var mixesScripts: Bool {
        let scalars = text.unicodeScalars
        let latin = scalars.contains { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        return latin && scalars.contains { Self.isCyrillicOrGreek($0) }
    }

    /// A warning when this name mixes scripts and looks like `other` (a name already in use).
    public func lookalikeWarning(of other: String) -> String? {
        guard mixesScripts, other != text, let existing = try? DeviceName(text: other),
            existing.skeleton == skeleton
        else { return nil }
        return "\"\(text)\" mixes Latin with Cyrillic or Greek letters and looks like the device \"\(other)\""
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate: true
        default: false
        }
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        switch scalar.properties.generalCategory {
        case .control: return "a control character (\(code))"
        case .format where (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value):
            return "a bidi override (\(code))"
        default: return "an invisible character (\(code))"
        }
    }

    private static func isCyrillicOrGreek(_ scalar: Unicode.Scalar) -> Bool {
        (0x0370...0x03FF).contains(scalar.value) || (0x0400...0x04FF).contains(scalar.value)
    }

    private static let latinLookalike: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(UInt32, Character)] = [
            (0x0430, "a"), (0x0435, "e"), (0x043E, "o"), (0x0440, "p"), (0x0441, "c"), (0x0443, "y"), (0x0445, "x"),
            (0x0456, "i"), (0x0458, "j"), (0x0455, "s"), (0x04BB, "h"), (0x0501, "d"), (0x051B, "q"), (0x051D, "w"),
            (0x03BF, "o"), (0x03B1, "a"), (0x03B5, "e"), (0x03B9, "i"), (0x03BA, "k"), (0x03BD, "v"), (0x03C1, "p"),
            (0x03C4, "t"), (0x03C5, "u"), (0x03C7, "x"),
        ]
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (code, latin) in pairs {
            if let scalar = Unicode.Scalar(code), let target = latin.unicodeScalars.first { table[scalar] = target }
        }
        return table
    }()
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
