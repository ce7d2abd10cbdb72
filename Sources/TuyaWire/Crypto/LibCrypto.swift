import CLibCrypto

/// What TuyaWire's libcrypto ciphers share (`LANCipher`, `AESCipher`, `CBCContexts`).
enum LibCrypto {
    /// A length libcrypto takes as an `int`; frames are far smaller (`LANFrame.defaultMaxSize`).
    static func length(_ count: Int, of what: String) throws(WireError) -> Int32 {
        guard let value = Int32(exactly: count) else {
            throw .lengthOutOfRange(field: what, value: count, limit: Int(Int32.max))
        }
        return value
    }

    /// A context keyed for one direction. A block mode (`blocks`) gets padding off, so that
    /// decryption hands back every block at once; GCM has no padding, and setting it would be
    /// applied again (as a parameter lookup) each time a frame's nonce is set.
    static func cipherContext(
        _ type: OpaquePointer?, key: [UInt8], encrypt: Bool, blocks: Bool
    ) throws(WireError) -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else {
            ERR_clear_error()
            throw .invalidKey("libcrypto could not make a cipher context")
        }
        guard EVP_CipherInit_ex(context, type, nil, key, nil, encrypt ? 1 : 0) == 1,
            !blocks || EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            ERR_clear_error()
            throw .invalidKey("libcrypto could not key AES-128")
        }
        return context
    }

    /// AES-128-ECB, fetched from libcrypto's providers once for the process: keying a context
    /// from `EVP_aes_128_ecb()` fetches it again every time (334 against 148 ns for a one-off
    /// ECB call). That one is used if the fetch failed.
    static var aes128ECB: OpaquePointer? { OpaquePointer(bitPattern: fetchedECB) ?? EVP_aes_128_ecb() }

    /// An array of `count` bytes written by `decrypt`, which returns how many of them to keep.
    /// When `decrypt` throws, whatever it wrote is zeroed before the memory is given back:
    /// nothing decrypted outlives a refused frame, not even in freed memory.
    static func plaintext(
        count: Int, _ decrypt: (UnsafeMutableBufferPointer<UInt8>) throws(WireError) -> Int
    ) throws(WireError) -> [UInt8] {
        var failure: WireError?
        let plaintext = [UInt8](unsafeUninitializedCapacity: count) { out, initialised in
            initialised = 0
            do throws(WireError) {
                initialised = try decrypt(out)
            } catch {
                out.update(repeating: 0)
                failure = error
            }
        }
        if let failure { throw failure }
        return plaintext
    }
}

/// `LibCrypto.aes128ECB` as an address (never freed; 0 if the fetch failed): a plain number
/// is Sendable.
private let fetchedECB: UInt = {
    let cipher = EVP_CIPHER_fetch(nil, "AES-128-ECB", nil)
    if cipher == nil { ERR_clear_error() }
    return UInt(bitPattern: cipher)
}()
