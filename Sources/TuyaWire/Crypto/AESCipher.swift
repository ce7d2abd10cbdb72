import Crypto

/// AES-128 in the two modes Tuya uses, through libcrypto (`AESContexts`: CBC on contexts kept
/// per key, ECB keyed for each call).
/// Neither pads: callers pad first (PKCS#7 for MQTT/LAN, zeros for BLE).
public enum AESCipher {
    /// AES-128-ECB over whole 16-byte blocks (Tuya MQTT "2.2", LAN discovery and handshakes).
    public static func encryptECB(_ plaintext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        guard plaintext.count % 16 == 0 else {
            throw .badPadding("ECB input of \(plaintext.count) bytes is not whole blocks")
        }
        return try key.contexts.run(.ecbEncrypt, plaintext[...])
    }

    /// Decrypts whole blocks (ECB).
    public static func decryptECB(_ ciphertext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        guard ciphertext.count % 16 == 0 else {
            throw .malformed("ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        return try key.contexts.run(.ecbDecrypt, ciphertext[...])
    }

    /// AES-128-CBC over whole blocks (Tuya BLE, protocol/TUYA.md §1.4).
    public static func encryptCBC(_ plaintext: [UInt8], key: AESKey, iv: [UInt8]) throws(WireError) -> [UInt8] {
        guard plaintext.count % 16 == 0 else {
            throw .badPadding("CBC input of \(plaintext.count) bytes is not whole blocks")
        }
        guard iv.count == 16 else { throw .invalidKey("AES-CBC IV must be 16 bytes, got \(iv.count)") }
        return try key.contexts.run(.cbcEncrypt, iv: iv, plaintext[...])
    }

    public static func decryptCBC(_ ciphertext: [UInt8], key: AESKey, iv: [UInt8]) throws(WireError) -> [UInt8] {
        guard ciphertext.count % 16 == 0 else {
            throw .malformed("ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        guard iv.count == 16 else { throw .invalidKey("AES-CBC IV must be 16 bytes, got \(iv.count)") }
        return try key.contexts.run(.cbcDecrypt, iv: iv, ciphertext[...])
    }
}

/// MD5, used to derive Tuya BLE keys (protocol/TUYA.md §1.4) and advert keys (§1.2).
public enum MD5Digest {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Array(Insecure.MD5.hash(data: bytes))
    }
}
