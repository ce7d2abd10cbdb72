import Crypto
import CryptoExtras
import Foundation
import TuyaWire

/// The floor under the LAN codec figures: only the swift-crypto calls one frame of each
/// version needs, on buffers of the frame's sizes, with nothing of ours around them. No codec
/// built on swift-crypto can encode or decode faster than this, so `rate / tinytuya's rate` is
/// the best ratio to tinytuya such a codec can reach (scripts/bench prints it as the ceiling).
///
/// | Version | Encode | Decode |
/// |---|---|---|
/// | 3.3 | AES-ECB (as the codec does it: one CFB call) | AES-ECB (one CBC call) |
/// | 3.4 | AES-ECB (CFB) and HMAC-SHA256 over the frame | HMAC-SHA256 and AES-ECB (CBC) |
/// | 3.5 | AES-GCM seal | AES-GCM open |
struct LANCryptoFloor {
    let seconds: Double
    /// The JSON body of the frame; the version header (15 bytes) is added where the version
    /// encrypts it.
    let bodySize: Int

    func run() throws {
        let key = SymmetricKey(data: [UInt8]("0123456789abcdef".utf8))
        let cbcIV = try AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))
        let cfbIV = try AES._CFB.IV(ivBytes: [UInt8](repeating: 1, count: 16))
        // Keyed once and copied per frame, as `LANFrameKey` does.
        let keyed = HMAC<SHA256>(key: key)
        func authenticate(_ bytes: [UInt8]) {
            var mac = keyed
            bytes.withUnsafeBytes { mac.update(data: $0) }
            blackHole(mac.finalize())
        }
        for version in ["33", "34", "35"] {
            let plain = (version == "33" ? 0 : 15) + bodySize
            let padded = plain + 16 - plain % 16
            let blocks = [UInt8](repeating: 0x5A, count: padded)
            let frameHead = [UInt8](repeating: 0x11, count: 16)
            switch version {
            case "35":
                let message = [UInt8](repeating: 0x5A, count: plain)
                let aad = [UInt8](repeating: 0x11, count: 14)
                let nonce = try AES.GCM.Nonce(data: [UInt8](repeating: 7, count: 12))
                let sealed = try AES.GCM.seal(message, using: key, nonce: nonce, authenticating: aad)
                report(
                    "lan35.encode.crypto-only",
                    try rate(seconds: seconds) {
                        blackHole(try AES.GCM.seal(message, using: key, nonce: nonce, authenticating: aad))
                    }, "frames/s")
                report(
                    "lan35.decode.crypto-only",
                    try rate(seconds: seconds) {
                        blackHole(try AES.GCM.open(sealed, using: key, authenticating: aad))
                    }, "frames/s")
            default:
                let mac = version == "34"
                let framed = frameHead + blocks
                report(
                    "lan\(version).encode.crypto-only",
                    try rate(seconds: seconds) {
                        blackHole(try AES._CFB.decrypt(blocks, using: key, iv: cfbIV))
                        if mac { authenticate(framed) }
                    }, "frames/s")
                report(
                    "lan\(version).decode.crypto-only",
                    try rate(seconds: seconds) {
                        if mac { authenticate(framed) }
                        blackHole(try AES._CBC.decrypt(blocks, using: key, iv: cbcIV, noPadding: true))
                    }, "frames/s")
            }
        }
    }
}
