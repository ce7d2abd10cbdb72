/// A device's Tuya local key as stored: its 16-character text.
///
/// Storage cannot see TuyaWire's `AESKey`, so it carries the text in this wrapper whose
/// `description`, `debugDescription` and reflection (`dump`) never show it.
public struct LocalKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The key text; read it only to build the cipher key.
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    public var description: String { "LocalKey(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
