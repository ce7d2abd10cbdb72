import Foundation

/// A session's identity: the id in `youll://timer/sessions/<id>`, the store's key and the
/// stamp every scheduled cue carries, so a cue from another session never fires here.
public struct SessionID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts the same strict charset as device ids (letters, digits, `_`, `-`; 1–64),
    /// since session ids travel in deep links and topics too.
    public init?(_ rawValue: String) {
        guard (1...64).contains(rawValue.utf8.count),
            rawValue.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x5F || byte == 0x2D
            })
        else { return nil }
        self.rawValue = rawValue
    }

    /// A fresh random id (a lower-case UUID).
    public static func random() -> SessionID {
        // A UUID string is hex digits and dashes: always valid.
        SessionID(UUID().uuidString.lowercased())!
    }

    public var description: String { rawValue }
}
