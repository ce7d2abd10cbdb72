/// A key ready for one protocol version's frames: its AES (and for 3.4 HMAC, for 3.5 GCM)
/// contexts are keyed once here and reused for every frame, since keying costs more than
/// encrypting a command (`LANCipher`). Sessions keep one per key (local, then session key).
/// A class, so that handing it to each frame's encode and decode costs one reference count.
final class LANFrameKey: Sendable {
    let key: AESKey
    let version: LANProtocolVersion
    /// The contexts, or why libcrypto could not make them: every frame then fails with that.
    private let made: Result<LANCipher, WireError>

    init(_ key: AESKey, version: LANProtocolVersion) {
        self.key = key
        self.version = version
        made = Result { () throws(WireError) in try LANCipher(key, version: version) }
    }

    func cipher() throws(WireError) -> LANCipher { try made.get() }

    /// How this version's 55AA frames are checked.
    func check() throws(WireError) -> LAN55AAFrame.Check {
        version.usesHMAC ? .hmac(try cipher()) : .crc32
    }
}
