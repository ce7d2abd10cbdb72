import Crypto
import Foundation

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

    /// Seals `frame[start...]` where it lies and appends the tag: the 6699 frame is built
    /// in one array, with `frame[aad]` authenticated.
    static func seal(
        _ frame: inout [UInt8], from start: Int, key: AESKey, nonce: [UInt8], authenticating aad: Range<Int>
    ) throws(WireError) {
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(
                frame[start...], using: key.symmetric, nonce: AES.GCM.Nonce(data: nonce), authenticating: frame[aad])
        } catch {
            throw .invalidKey("AES-GCM refused the nonce of \(nonce.count) bytes")
        }
        frame.withUnsafeMutableBytes { out in
            box.ciphertext.withUnsafeBytes { sealed in
                UnsafeMutableRawBufferPointer(rebasing: out[start..<(start + sealed.count)]).copyMemory(from: sealed)
            }
        }
        frame.append(contentsOf: box.tag)
    }

    /// Opens a 12-byte nonce, the ciphertext and the 16-byte tag lying together in that
    /// order (as in a 6699 frame): the sealed box is made from them in one copy rather than
    /// assembled from three pieces. Returns the plaintext after its first `dropping` bytes (a
    /// device frame's retcode is read from `head` first), copied once.
    static func open(
        combined: ArraySlice<UInt8>, key: AESKey, authenticating aad: ArraySlice<UInt8>, dropping: Int,
        head: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(WireError) -> [UInt8] {
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            plaintext = try AES.GCM.open(box, using: key.symmetric, authenticating: aad)
        } catch {
            throw .authenticationFailed(what: "LAN 6699 AES-GCM tag")
        }
        guard plaintext.count >= dropping else {
            throw .truncated(what: "LAN 6699 retcode", needed: dropping, available: plaintext.count)
        }
        return plaintext.withUnsafeBytes { bytes in
            head?(bytes)
            return Array(bytes[dropping...])
        }
    }
}
