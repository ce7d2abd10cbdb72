import CLibCrypto
import Foundation
import TuyaWire

/// The floor under the LAN codec figures: only the libcrypto calls one frame of each version
/// needs (the ones `LANCipher` makes, on contexts keyed once), on buffers of the frame's
/// sizes, with nothing of ours around them. No codec built on them can encode or decode
/// faster than this, so `rate / tinytuya's rate` is the best ratio to tinytuya such a codec
/// can reach (scripts/bench prints it as the ceiling).
///
/// | Version | Encode | Decode |
/// |---|---|---|
/// | 3.3 | AES-ECB | AES-ECB |
/// | 3.4 | AES-ECB and HMAC-SHA256 over the frame | HMAC-SHA256 and AES-ECB |
/// | 3.5 | AES-GCM seal | AES-GCM open |
struct LANCryptoFloor {
    let seconds: Double
    /// The JSON body of the frame; the version header (15 bytes) is added where the version
    /// encrypts it.
    let bodySize: Int

    func run() throws {
        let key = [UInt8]("0123456789abcdef".utf8)
        guard let encrypt = EVP_CIPHER_CTX_new(), let decrypt = EVP_CIPHER_CTX_new(),
            let seal = EVP_CIPHER_CTX_new(), let open = EVP_CIPHER_CTX_new(),
            let mac = youll_hmac_sha256_new(key, key.count),
            EVP_CipherInit_ex(encrypt, EVP_aes_128_ecb(), nil, key, nil, 1) == 1,
            EVP_CipherInit_ex(decrypt, EVP_aes_128_ecb(), nil, key, nil, 0) == 1,
            EVP_CIPHER_CTX_set_padding(encrypt, 0) == 1, EVP_CIPHER_CTX_set_padding(decrypt, 0) == 1,
            EVP_CipherInit_ex(seal, EVP_aes_128_gcm(), nil, key, nil, 1) == 1,
            EVP_CipherInit_ex(open, EVP_aes_128_gcm(), nil, key, nil, 0) == 1
        else { throw BenchError("libcrypto could not key the floor's contexts") }
        defer {
            for context in [encrypt, decrypt, seal, open] { EVP_CIPHER_CTX_free(context) }
            youll_hmac_sha256_free(mac)
        }
        // Scratch for every figure: the frame's blocks, its tag and its MAC, encrypted in place.
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        defer { scratch.deallocate() }
        scratch.initialize(repeating: 0x5A, count: 4096)
        let tag = scratch + 3000
        let code = scratch + 3100
        for version in ["33", "34", "35"] {
            let plain = (version == "33" ? 0 : 15) + bodySize
            let padded = plain + 16 - plain % 16
            guard 16 + padded <= 1024 else { throw BenchError("the codec floor takes bodies up to 990 bytes") }
            switch version {
            case "35":
                let aad = [UInt8](repeating: 0x11, count: 14)
                let nonce = [UInt8](repeating: 7, count: 12)
                let length = Int32(plain)
                report(
                    "lan35.encode.crypto-only",
                    rate(seconds: seconds) {
                        blackHole(youll_gcm_seal(seal, nonce, aad, 14, scratch, scratch, length, tag))
                    }, "frames/s")
                // One frame sealed for good, opened again and again into the scratch after it.
                let sealed = Array(UnsafeBufferPointer(start: scratch, count: plain))
                let sealedTag = Array(UnsafeBufferPointer(start: tag, count: 16))
                report(
                    "lan35.decode.crypto-only",
                    try rate(seconds: seconds) {
                        guard youll_gcm_open(open, nonce, aad, 14, sealed, scratch + 1024, length, sealedTag) == 1
                        else { throw BenchError("the floor's GCM frame did not open") }
                    }, "frames/s")
            default:
                let withMAC = version == "34"
                // The MAC covers the 16-byte header and the blocks.
                let framed = 16 + padded
                report(
                    "lan\(version).encode.crypto-only",
                    rate(seconds: seconds) {
                        blackHole(youll_ecb(encrypt, scratch + 16, scratch + 16, Int32(padded)))
                        if withMAC { blackHole(youll_hmac_sha256(mac, scratch, framed, code)) }
                    }, "frames/s")
                report(
                    "lan\(version).decode.crypto-only",
                    rate(seconds: seconds) {
                        if withMAC { blackHole(youll_hmac_sha256(mac, scratch, framed, code)) }
                        blackHole(youll_ecb(decrypt, scratch + 16, scratch + 16, Int32(padded)))
                    }, "frames/s")
            }
        }
    }
}
