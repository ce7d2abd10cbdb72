/// A request or `/set` payload the bridge cannot act on, naming the field and what is
/// accepted, so the response's `error` tells the sender exactly what to fix.
public struct BridgePayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The JSON field at fault (`brightness`, `color.hue`), or `payload` for the whole body.
    public var field: String
    public var reason: String

    /// `field` may be a key the sender made up (an unknown field is named back to it): it is
    /// kept to 64 characters with control characters shown as text, because the error is
    /// answered, logged and stored as an event, and a 60 KB key would be all three.
    public init(field: String, reason: String) {
        self.field = BridgeText.printable(field, maximumLength: Self.maximumFieldLength)
        self.reason = reason
    }

    public static let maximumFieldLength = 64

    public var description: String { "\(field): \(reason)" }
}
