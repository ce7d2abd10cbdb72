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
        let failure = out.withUnsafeMutableBufferPointer { buffer -> WireError? in
            do throws(WireError) {
                try encryptECB(inPlace: buffer, key: key)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return out
    }

    /// Encrypts the whole blocks of `buffer` where they are (ECB), so a frame is sealed
    /// inside the array it is sent from.
    static func encryptECB(inPlace buffer: UnsafeMutableBufferPointer<UInt8>, key: AESKey) throws(WireError) {
        guard buffer.count % 16 == 0 else {
            throw .badPadding("ECB input of \(buffer.count) bytes is not whole blocks")
        }
        do {
            // Permute each block through a buffer pointer: an `inout` ArraySlice here
            // copied the array on every block (about 5× slower).
            var offset = 0
            while offset < buffer.count {
                var block = UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + 16)])
                try AES.permute(&block, key: key.symmetric)
                offset += 16
            }
        } catch {
            throw .malformed("AES-ECB failed: \(error)")
        }
    }

    /// A zero IV: CBC decryption with it, XORed with the previous ciphertext block, is ECB.
    private static let zeroIV: AES._CBC.IV? = try? AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))

    /// Decrypts whole blocks. ECB decryption of block i equals CBC decryption of block i
    /// XOR the previous ciphertext block, so one CBC call with a zero IV does all blocks
    /// with a single key schedule.
    public static func decryptECB(_ ciphertext: [UInt8], key: AESKey) throws(WireError) -> [UInt8] {
        try decryptECB(ciphertext[...], key: key, removingPKCS7: false)
    }

    /// Decrypts whole blocks and, with `removingPKCS7`, checks and drops the PKCS#7 padding
    /// in the same pass: the plaintext is written once, into the array returned.
    static func decryptECB(
        _ ciphertext: ArraySlice<UInt8>, key: AESKey, removingPKCS7: Bool
    ) throws(WireError) -> [UInt8] {
        guard ciphertext.count % 16 == 0 else {
            throw .malformed("ciphertext of \(ciphertext.count) bytes is not whole 16-byte blocks")
        }
        guard !ciphertext.isEmpty else {
            if removingPKCS7 { throw .badPadding("length 0 is not a positive multiple of 16") }
            return []
        }
        let chained: Data
        do {
            guard let zeroIV else { throw CryptoKitError.incorrectParameterSize }
            chained = try AES._CBC.decrypt(ciphertext, using: key.symmetric, iv: zeroIV, noPadding: true)
        } catch {
            throw .malformed("AES-ECB failed: \(error)")
        }
        let opened: Result<[UInt8], WireError> = chained.withUnsafeBytes { plain in
            ciphertext.withUnsafeBytes { cipher in
                let count = plain.count
                // Block i of ECB = CBC block i XOR ciphertext block i - 1.
                func byte(_ index: Int) -> UInt8 { index < 16 ? plain[index] : plain[index] ^ cipher[index - 16] }
                var keep = count
                if removingPKCS7 {
                    let pad = Int(byte(count - 1))
                    guard pad >= 1, pad <= 16 else { return .failure(.badPadding("pad length \(pad) outside 1...16")) }
                    for index in (count - pad)..<count where Int(byte(index)) != pad {
                        return .failure(.badPadding("pad bytes differ"))
                    }
                    keep = count - pad
                }
                return .success(
                    [UInt8](unsafeUninitializedCapacity: keep) { out, initialised in
                        for index in 0..<keep { out[index] = byte(index) }
                        initialised = keep
                    })
            }
        }
        return try opened.get()
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
