import Crypto

/// The session-key negotiation of protocol 3.4 and 3.5 (protocol/TUYA.md §2.4, TT
/// `_negotiate_session_key*`), as pure functions both sides share:
///
/// 1. client → `SESS_KEY_NEG_START`: its nonce Nc (16 bytes)
/// 2. device → `SESS_KEY_NEG_RESP`: its nonce Nd (16) ‖ HMAC-SHA256(localKey, Nc)
/// 3. client → `SESS_KEY_NEG_FINISH`: HMAC-SHA256(localKey, Nd)
///
/// All three are sealed with the real local key (ECB + HMAC in 3.4, GCM in 3.5; that is
/// `LANMessageCodec`'s work). Both sides then derive the session key from Nc XOR Nd.
public enum LANHandshake {
    public static let nonceSize = 16
    public static let hmacSize = 32

    /// Step 2: what the device answers to a client nonce.
    public static func responsePayload(localKey: AESKey, clientNonce: [UInt8], deviceNonce: [UInt8]) -> [UInt8] {
        deviceNonce + hmac(localKey, clientNonce)
    }

    /// Step 3: what the client sends after checking the response.
    public static func finishPayload(localKey: AESKey, deviceNonce: [UInt8]) -> [UInt8] {
        hmac(localKey, deviceNonce)
    }

    /// Checks the device's step-2 payload against the client nonce and returns Nd. A wrong
    /// HMAC means the device holds another local key (or is not the device).
    public static func deviceNonce(
        fromResponse payload: [UInt8], localKey: AESKey, clientNonce: [UInt8]
    ) throws(LANSessionFailure) -> [UInt8] {
        guard payload.count >= nonceSize + hmacSize else {
            throw .malformed(
                .truncated(what: "SESS_KEY_NEG_RESP payload", needed: nonceSize + hmacSize, available: payload.count))
        }
        let expected = hmac(localKey, clientNonce)
        guard payload[nonceSize..<(nonceSize + hmacSize)].elementsEqual(expected) else {
            throw .handshakeHMACMismatch
        }
        return Array(payload[..<nonceSize])
    }

    /// Checks the client's step-3 payload on the device side.
    public static func verifyFinish(_ payload: [UInt8], localKey: AESKey, deviceNonce: [UInt8]) -> Bool {
        payload.count >= hmacSize && payload.prefix(hmacSize).elementsEqual(hmac(localKey, deviceNonce))
    }

    /// The session key: X = Nc XOR Nd; 3.4 takes AES-128-ECB(localKey, X), 3.5 the 16 GCM
    /// ciphertext bytes of X under the local key with nonce Nc[0..<12] and no AAD.
    public static func sessionKey(
        version: LANProtocolVersion, localKey: AESKey, clientNonce: [UInt8], deviceNonce: [UInt8]
    ) throws(WireError) -> AESKey {
        guard clientNonce.count == nonceSize, deviceNonce.count == nonceSize else {
            throw .invalidKey(
                "session-key nonces are \(nonceSize) bytes, got \(clientNonce.count) and \(deviceNonce.count)")
        }
        var mixed = [UInt8](repeating: 0, count: nonceSize)
        for index in 0..<nonceSize { mixed[index] = clientNonce[index] ^ deviceNonce[index] }
        switch version {
        case .v3_5:
            let sealed = try GCM.seal(
                mixed, key: localKey, nonce: Array(clientNonce[..<LAN6699Frame.nonceSize]), authenticating: [])
            return try AESKey(bytes: sealed.ciphertext)
        case .v3_4:
            return try AESKey(bytes: AESCipher.encryptECB(mixed, key: localKey))
        default:
            throw .unsupportedVersion("\(version) has no session key")
        }
    }

    static func hmac(_ key: AESKey, _ data: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: key.symmetric))
    }
}
