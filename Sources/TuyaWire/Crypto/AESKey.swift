import Crypto

/// A 16-byte AES-128 key: a device's local key, a BLE login or session key.
///
/// Its `description` never shows the key bytes, so a key that reaches a log or an
/// error message leaks nothing.
public struct AESKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let bytes: [UInt8]
    let symmetric: SymmetricKey
    /// Its AES-CBC contexts, made on first use and shared by the key's copies.
    let cbc: CBCContexts

    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == 16 else { throw .invalidKey("AES-128 key must be 16 bytes, got \(bytes.count)") }
        self.bytes = bytes
        symmetric = SymmetricKey(data: bytes)
        cbc = CBCContexts()
    }

    /// A Tuya local key as typed: 16 ASCII characters, used as the raw key bytes.
    public init(localKey: String) throws(WireError) {
        let utf8 = Array(localKey.utf8)
        guard utf8.count == 16 else {
            throw .invalidKey("a local key is 16 characters, got \(utf8.count)")
        }
        try self.init(bytes: utf8)
    }

    public var description: String { "AESKey(<redacted>)" }
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show nothing of the key either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    public static func == (lhs: AESKey, rhs: AESKey) -> Bool { lhs.bytes == rhs.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
