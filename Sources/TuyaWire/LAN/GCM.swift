import Crypto

/// AES-128-GCM with a 12-byte nonce and a separate 16-byte tag, as Tuya LAN 3.5 frames,
/// 3.5 discovery and the 3.5 session-key derivation use it (protocol/TUYA.md §2.2, §2.4).
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

    static func open(
        ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>, key: AESKey, nonce: ArraySlice<UInt8>,
        authenticating aad: ArraySlice<UInt8>
    ) throws(WireError) -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            return Array(try AES.GCM.open(box, using: key.symmetric, authenticating: aad))
        } catch {
            throw .authenticationFailed(what: "LAN 6699 AES-GCM tag")
        }
    }
}
