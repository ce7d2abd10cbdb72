import Crypto
import CryptoExtras
import Foundation

/// AES-128 in the two modes Tuya uses, through swift-crypto. Neither pads: callers
/// pad first (PKCS#7 for MQTT/LAN, zeros for BLE).
public enum AESCipher {
    /// AES-128-ECB over whole 16-byte blocks (Tuya MQTT "2.2" and LAN 3.3).
    public static func encryptECB(_ plaintext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        guard plaintext.count % 16 == 0 else {
            throw .badPadding("ECB input of \(plaintext.count) bytes is not whole blocks")
        }
        var out = plaintext
        do {
            // Permute each block in place through a buffer pointer: an `inout` ArraySlice
            // here copied the array on every block (about 5× slower).
            try out.withUnsafeMutableBufferPointer { buffer in
                var offset = 0
                while offset < buffer.count {
                    var block = UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + 16)])
                    try AES.permute(&block, key: key.symmetric)
                    offset += 16
                }
            }
        } catch {
            throw .malformed("AES-ECB failed: \(error)")
        }
        return out
    }

    /// Decrypts whole blocks. ECB decryption of block i equals CBC decryption of block i
    /// XOR the previous ciphertext block, so one CBC call with a zero IV does all blocks
    /// with a single key schedule.
    public static func decryptECB(_ ciphertext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        guard ciphertext.count % 16 == 0 else {
            throw .malformed("ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        guard !ciphertext.isEmpty else { return [] }
        var out: [UInt8]
        do {
            let zero = try AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))
            out = Array(try AES._CBC.decrypt(ciphertext, using: key.symmetric, iv: zero, noPadding: true))
        } catch {
            throw .malformed("AES-ECB failed: \(error)")
        }
        var i = 16
        while i < out.count {
            out[i] ^= ciphertext[i - 16]
            i += 1
        }
        return out
    }

    /// AES-128-CBC over whole blocks (Tuya BLE, protocol/TUYA.md §1.4).
    public static func encryptCBC(_ plaintext: [UInt8], key: AESKey, iv: [UInt8]) throws(WireError) -> [UInt8] {
        guard plaintext.count % 16 == 0 else {
            throw .badPadding("CBC input of \(plaintext.count) bytes is not whole blocks")
        }
        do {
            let iv = try AES._CBC.IV(ivBytes: iv)
            return Array(try AES._CBC.encrypt(plaintext, using: key.symmetric, iv: iv, noPadding: true))
        } catch {
            throw .invalidKey("AES-CBC IV must be 16 bytes, got \(iv.count)")
        }
    }

    public static func decryptCBC(_ ciphertext: [UInt8], key: AESKey, iv: [UInt8]) throws(WireError) -> [UInt8] {
        guard ciphertext.count % 16 == 0 else {
            throw .malformed("ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        guard iv.count == 16 else { throw .invalidKey("AES-CBC IV must be 16 bytes, got \(iv.count)") }
        guard !ciphertext.isEmpty else { return [] }
        do {
            let iv = try AES._CBC.IV(ivBytes: iv)
            return Array(try AES._CBC.decrypt(ciphertext, using: key.symmetric, iv: iv, noPadding: true))
        } catch {
            throw .malformed("AES-CBC failed: \(error)")
        }
    }
}

/// MD5, used to derive Tuya BLE keys (protocol/TUYA.md §1.4) and advert keys (§1.2).
public enum MD5Digest {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Array(Insecure.MD5.hash(data: bytes))
    }
}
