import Foundation

/// Why a stored session could not be read back: the session and the field at fault, so a
/// hand-edited or damaged row is reported, never a crash.
public struct SessionDetailError: Error, Hashable, Sendable, CustomStringConvertible {
    public var session: String
    public var field: String
    public var reason: String

    public var description: String {
        "stored session \(session): \(field) \(reason); the row is damaged (remove it or restore a backup)"
    }

    init(session: String, field: String, reason: String) {
        self.session = session
        self.field = field
        self.reason = reason
    }

    /// The field a decoding error points at, written as a path under `detail`
    /// (`detail.session.stages[0].length_ms`), with the reason in words.
    init(session: String, decoding error: DecodingError) {
        let (path, reason): ([any CodingKey], String) =
            switch error {
            case .keyNotFound(let key, let context): (context.codingPath + [key], "is missing")
            case .valueNotFound(_, let context): (context.codingPath, "is missing")
            case .typeMismatch(let type, let context): (context.codingPath, "is not \(Self.kind(type))")
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "cannot be read")
            }
        self.init(session: session, field: Self.field(path), reason: reason)
    }

    private static func field(_ path: [any CodingKey]) -> String {
        path.reduce("detail") { field, key in
            if let index = key.intValue { return field + "[\(index)]" }
            return field + "." + key.stringValue
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [Any].Type: "a list"
        default: "an object"
        }
    }
}
