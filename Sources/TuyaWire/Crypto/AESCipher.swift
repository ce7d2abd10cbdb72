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
    ///
    /// swift-crypto has no ECB mode, and `AES.permute` expands the key schedule again for
    /// every 16-byte block. CFB decryption computes `P[i] = C[i] ⊕ E(C[i-1])` with
    /// `C[0] = IV`, where every input is known beforehand: with IV = X₁ and ciphertext
    /// X₂ … Xₙ ‖ 0¹⁶ one call (one key schedule, BoringSSL's constant-time AES) returns
    /// E(Xᵢ) ⊕ Xᵢ₊₁ for i < n and E(Xₙ) last, from which the blocks are written back.
    static func encryptECB(inPlace buffer: UnsafeMutableBufferPointer<UInt8>, key: AESKey) throws(WireError) {
        let count = buffer.count
        guard count % 16 == 0 else {
            throw .badPadding("ECB input of \(count) bytes is not whole blocks")
        }
        guard count > 0, let base = buffer.baseAddress else { return }
        let keystream: Data
        do {
            let iv = try AES._CFB.IV(ivBytes: UnsafeBufferPointer(start: base, count: 16))
            keystream = try withUnsafeTemporaryAllocation(byteCount: count, alignment: 16) { input in
                // X₂ … Xₙ, then a zero block.
                input.copyMemory(from: UnsafeRawBufferPointer(start: base + 16, count: count - 16))
                input.baseAddress!.advanced(by: count - 16).initializeMemory(as: UInt8.self, repeating: 0, count: 16)
                return try AES._CFB.decrypt(UnsafeRawBufferPointer(input), using: key.symmetric, iv: iv)
            }
        } catch {
            throw .malformed("AES-ECB failed: \(error)")
        }
        keystream.withUnsafeBytes { (stream: UnsafeRawBufferPointer) in
            // Block i is written after block i + 1 was read, in ascending order.
            for index in 0..<(count - 16) { base[index] = stream[index] ^ base[index + 16] }
            for index in (count - 16)..<count { base[index] = stream[index] }
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
