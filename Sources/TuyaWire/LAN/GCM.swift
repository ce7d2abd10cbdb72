import Crypto
import Foundation

/// AES-128-GCM with a 12-byte nonce and a separate 16-byte tag, as the 3.5 session-key
/// derivation uses it once per handshake (protocol/TUYA.md §2.4). Frames, sealed many times
/// under one key, go through `LANCipher`.
enum GCM {
    struct Sealed {
        var ciphertext: [UInt8]
        var tag: [UInt8]
    }

    static func seal(
        _ plaintext: [UInt8], key: AESKey, nonce: [UInt8], authenticating aad: ArraySlice<UInt8>
    ) throws(WireError) -> Sealed {
        do {
            let box = try AES.GCM.seal(
                plaintext, using: key.symmetric, nonce: AES.GCM.Nonce(data: nonce), authenticating: aad)
            return Sealed(ciphertext: Array(box.ciphertext), tag: Array(box.tag))
        } catch {
            throw .invalidKey("AES-GCM refused the nonce of \(nonce.count) bytes")
        }
    }
}
