/// A request or `/set` payload the bridge cannot act on, naming the field and what is
/// accepted, so the response's `error` tells the sender exactly what to fix.
public struct BridgePayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The JSON field at fault (`brightness`, `color.hue`), or `payload` for the whole body.
    public var field: String
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
