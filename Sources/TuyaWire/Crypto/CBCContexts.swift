import CLibCrypto
import Synchronization

/// The AES-128-CBC contexts of one key (`AESKey`), one per direction, each made on its first
/// use and kept for every later call: BLE seals and opens every frame under one session key,
/// and swift-crypto's one-shot calls expanded the key schedule again each time (7 % of a BLE
/// DP write's CPU, both ends). A key used once (an advertisement's) costs what a one-off call
/// does. ECB is not kept (`AESCipher.ecb` says why).
///
/// A context carries its IV and chaining state between the calls of one frame, so it is used
/// only under the lock.
final class CBCContexts: Sendable {
    /// The encrypting and the decrypting context once made, as addresses (0: not made yet):
    /// plain numbers, which a `Mutex` holds as Sendable values, in a pair rather than an array
    /// (no second allocation for every key made). Freed (which wipes their key schedules) with
    /// the last copy of the key.
    private let made = Mutex<(encrypt: UInt, decrypt: UInt)>((0, 0))

    deinit {
        made.withLock { contexts in
            EVP_CIPHER_CTX_free(OpaquePointer(bitPattern: contexts.encrypt))
            EVP_CIPHER_CTX_free(OpaquePointer(bitPattern: contexts.decrypt))
        }
    }

    /// CBC from `iv` (16 bytes) over `length` bytes of whole blocks from `input` to `output`,
    /// under `key`, the key these contexts belong to. Returns libcrypto's 1 or 0.
    func run(
        encrypt: Bool, key: [UInt8], iv: [UInt8], from input: UnsafePointer<UInt8>,
        to output: UnsafeMutablePointer<UInt8>, length: Int32
    ) throws(WireError) -> Int32 {
        try made.withLock { contexts throws(WireError) in
            let context: OpaquePointer
            if let kept = OpaquePointer(bitPattern: encrypt ? contexts.encrypt : contexts.decrypt) {
                context = kept
            } else {
                context = try LibCrypto.cipherContext(EVP_aes_128_cbc(), key: key, encrypt: encrypt, blocks: true)
                if encrypt {
                    contexts.encrypt = UInt(bitPattern: context)
                } else {
                    contexts.decrypt = UInt(bitPattern: context)
                }
            }
            return youll_cbc(context, iv, output, input, length)
        }
    }
}
