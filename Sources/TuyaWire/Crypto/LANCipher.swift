import CLibCrypto
import Synchronization

/// The ciphers of one LAN key, keyed once and kept for every frame under it: AES-128-ECB
/// both ways (3.1–3.4) and AES-128-GCM (3.5) as OpenSSL contexts, and HMAC-SHA256 (3.4) as
/// the two SHA-256 states the key's pads leave (`youll_hmac_sha256_key` in CLibCrypto).
///
/// swift-crypto has no keyed context to keep: each of its calls expands the AES key again,
/// builds GCM's GHASH tables again and keys HMAC again, which for a 60-byte command costs
/// more than the frame's own encryption. Here each frame costs one call into libcrypto (the
/// library libmosquitto already loads into the gateway). Which contexts exist depends on
/// the version: a 3.3 key has no HMAC or GCM context.
///
/// A context carries state between the calls of one frame, so the contexts are used only
/// under `lock`: a session (a value type) shares its frame keys with its copies, which may
/// be used from more than one place. The lock is never contended on the gateway's paths (a
/// session lives on its link's event loop).
final class LANCipher: Sendable {
    /// Held around every use of a context below.
    private let lock = Mutex(())
    // Why `nonisolated(unsafe)` is safe here: the pointers never change after `init` (`let`),
    // and what they point to is read or written only inside `lock.withLock` (every method
    // below) or in `deinit`, when no other reference to the cipher exists.
    private nonisolated(unsafe) let contexts: Contexts

    /// Contexts for the modes `version` frames use under `key`. Throws when libcrypto cannot
    /// make one (out of memory, or an OpenSSL configuration without AES or HMAC).
    init(_ key: AESKey, version: LANProtocolVersion) throws(WireError) {
        var made = Contexts()
        do throws(WireError) {
            try made.make(key.bytes, version: version)
        } catch {
            made.free()
            throw error
        }
        contexts = made
    }

    deinit {
        contexts.free()
    }

    /// Encrypts the whole blocks of `buffer` where they are.
    func encryptECB(inPlace buffer: UnsafeMutableBufferPointer<UInt8>) throws(WireError) {
        guard buffer.count % 16 == 0 else {
            throw .badPadding("ECB input of \(buffer.count) bytes is not whole blocks")
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let done = try lock.withLock { _ throws(WireError) in
            youll_ecb(
                try Self.context(contexts.ecbEncrypt, "AES-ECB"), base, base,
                try LibCrypto.length(buffer.count, of: "LAN cipher input"))
        }
        guard done == 1 else { throw .malformed("AES-ECB encryption failed") }
    }

    /// Decrypts whole blocks into the array returned and, with `removingPKCS7`, checks and
    /// drops the PKCS#7 padding: the plaintext is written once.
    func decryptECB(_ ciphertext: ArraySlice<UInt8>, removingPKCS7: Bool) throws(WireError) -> [UInt8] {
        let count = ciphertext.count
        guard count % 16 == 0 else {
            throw .malformed("ciphertext of \(count) bytes is not whole 16-byte blocks")
        }
        guard count > 0 else {
            if removingPKCS7 { throw .badPadding("length 0 is not a positive multiple of 16") }
            return []
        }
        return try LibCrypto.plaintext(count: count) { out throws(WireError) in
            let done = try ciphertext.withUnsafeBufferPointer { input throws(WireError) in
                try lock.withLock { _ throws(WireError) in
                    youll_ecb(
                        try Self.context(contexts.ecbDecrypt, "AES-ECB"), out.baseAddress, input.baseAddress,
                        try LibCrypto.length(count, of: "LAN cipher input"))
                }
            }
            guard done == 1 else { throw .malformed("AES-ECB decryption failed") }
            return removingPKCS7 ? try PKCS7.unpaddedCount(of: UnsafeBufferPointer(out)) : count
        }
    }

    /// Writes the 32-byte HMAC-SHA256 of `bytes` to `mac`.
    func authenticate(_ bytes: UnsafeRawBufferPointer, into mac: UnsafeMutablePointer<UInt8>) throws(WireError) {
        let done = try lock.withLock { _ throws(WireError) in
            guard let hmac = contexts.hmac else {
                throw .invalidKey("no HMAC-SHA256 key for this protocol version's key")
            }
            return youll_hmac_sha256(hmac, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, mac)
        }
        guard done == 1 else { throw .malformed("HMAC-SHA256 failed") }
    }

    /// Encrypts `frame[start...]` where it lies under the 12-byte `nonce`, authenticating
    /// `frame[aad]` too, and appends the 16-byte tag.
    func sealGCM(
        _ frame: inout [UInt8], from start: Int, nonce: [UInt8], authenticating aad: Range<Int>
    ) throws(WireError) {
        guard nonce.count == 12 else { throw .invalidKey("an AES-GCM nonce is 12 bytes, got \(nonce.count)") }
        guard start >= 0, start <= frame.count, aad.lowerBound >= 0, aad.upperBound <= start else {
            throw .malformed("AES-GCM sealing from byte \(start), authenticating \(aad), of \(frame.count) bytes")
        }
        let length = try LibCrypto.length(frame.count - start, of: "LAN cipher input")
        let aadLength = try LibCrypto.length(aad.count, of: "LAN cipher input")
        frame.append(contentsOf: repeatElement(0, count: 16))
        let done = try frame.withUnsafeMutableBufferPointer { all throws(WireError) in
            try lock.withLock { _ throws(WireError) in
                let context = try Self.context(contexts.gcmSeal, "AES-GCM")
                let base = all.baseAddress!
                return youll_gcm_seal(
                    context, nonce, base + aad.lowerBound, aadLength, base + start, base + start, length,
                    base + start + Int(length))
            }
        }
        guard done == 1 else { throw .malformed("AES-GCM sealing failed") }
    }

    /// Opens a 12-byte nonce, the ciphertext and the 16-byte tag lying together in that
    /// order (as in a 6699 frame) and returns the plaintext. Throws `authenticationFailed`
    /// when the tag does not verify; nothing decrypted is returned then.
    func openGCM(combined: ArraySlice<UInt8>, authenticating aad: ArraySlice<UInt8>) throws(WireError) -> [UInt8] {
        let length = combined.count - 28
        guard length >= 0 else {
            throw .truncated(what: "AES-GCM nonce and tag", needed: 28, available: combined.count)
        }
        let textLength = try LibCrypto.length(length, of: "LAN cipher input")
        let aadLength = try LibCrypto.length(aad.count, of: "LAN cipher input")
        return try LibCrypto.plaintext(count: length) { out throws(WireError) in
            let done = try combined.withUnsafeBufferPointer { sealed throws(WireError) in
                try aad.withUnsafeBufferPointer { aad throws(WireError) in
                    try lock.withLock { _ throws(WireError) in
                        let base = sealed.baseAddress!
                        return youll_gcm_open(
                            try Self.context(contexts.gcmOpen, "AES-GCM"), base, aad.baseAddress, aadLength, base + 12,
                            out.baseAddress, textLength, base + 12 + length)
                    }
                }
            }
            guard done == 1 else { throw .authenticationFailed(what: "LAN 6699 AES-GCM tag") }
            return length
        }
    }

    /// The context for a mode, or an error naming the mode when this key's version does not
    /// use it.
    private static func context(_ context: OpaquePointer?, _ mode: String) throws(WireError) -> OpaquePointer {
        guard let context else { throw .invalidKey("no \(mode) context for this protocol version's key") }
        return context
    }
}

/// The OpenSSL contexts of one key, nil for the modes its version does not use, and their release
/// (`EVP_CIPHER_CTX_free` and `youll_hmac_sha256_free` wipe the key schedules and pads).
private struct Contexts {
    var ecbEncrypt: OpaquePointer?
    var ecbDecrypt: OpaquePointer?
    var gcmSeal: OpaquePointer?
    var gcmOpen: OpaquePointer?
    var hmac: UnsafeMutablePointer<youll_hmac_sha256_key>?

    mutating func make(_ key: [UInt8], version: LANProtocolVersion) throws(WireError) {
        switch version {
        case .v3_1, .v3_2, .v3_3, .v3_4:
            ecbEncrypt = try LibCrypto.cipherContext(LibCrypto.aes128ECB, key: key, encrypt: true, blocks: true)
            ecbDecrypt = try LibCrypto.cipherContext(LibCrypto.aes128ECB, key: key, encrypt: false, blocks: true)
            if version == .v3_4 {
                guard let made = youll_hmac_sha256_new(key, key.count) else {
                    throw .invalidKey("libcrypto could not key HMAC-SHA256")
                }
                hmac = made
            }
        case .v3_5:
            gcmSeal = try LibCrypto.cipherContext(EVP_aes_128_gcm(), key: key, encrypt: true, blocks: false)
            gcmOpen = try LibCrypto.cipherContext(EVP_aes_128_gcm(), key: key, encrypt: false, blocks: false)
        }
    }

    func free() {
        EVP_CIPHER_CTX_free(ecbEncrypt)
        EVP_CIPHER_CTX_free(ecbDecrypt)
        EVP_CIPHER_CTX_free(gcmSeal)
        EVP_CIPHER_CTX_free(gcmOpen)
        youll_hmac_sha256_free(hmac)
    }
}
