import Crypto

/// A key ready for one protocol version's frames: for 3.4 the HMAC-SHA256 is keyed once
/// here and copied for every frame, since keying HMAC costs several times more than
/// hashing a frame. Sessions keep one per key (local, then session key).
struct LANFrameKey: Sendable {
    let key: AESKey
    let check: LAN55AAFrame.Check

    init(_ key: AESKey, version: LANProtocolVersion) {
        self.key = key
        check = version.usesHMAC ? .hmac(HMAC<SHA256>(key: key.symmetric)) : .crc32
    }
}
