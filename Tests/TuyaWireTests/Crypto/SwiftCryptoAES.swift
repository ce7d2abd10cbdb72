import Crypto
import CryptoExtras
import Foundation

/// AES-128 ECB and CBC as swift-crypto (BoringSSL) computes them, one block or one message
/// per call with a fresh key: the reference the kept libcrypto contexts are checked against.
enum SwiftCryptoAES {
    static let zeroIV = [UInt8](repeating: 0, count: 16)

    static func cbcEncrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        Array(try AES._CBC.encrypt(plaintext, using: SymmetricKey(data: key), iv: .init(ivBytes: iv), noPadding: true))
    }

    static func cbcDecrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        Array(
            try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: key), iv: .init(ivBytes: iv), noPadding: true))
    }

    /// ECB is CBC with a zero IV, one block at a time.
    static func ecbEncrypt(_ plaintext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try stride(from: 0, to: plaintext.count, by: 16).flatMap {
            try cbcEncrypt(Array(plaintext[$0..<($0 + 16)]), key: key, iv: zeroIV)
        }
    }

    static func ecbDecrypt(_ ciphertext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try stride(from: 0, to: ciphertext.count, by: 16).flatMap {
            try cbcDecrypt(Array(ciphertext[$0..<($0 + 16)]), key: key, iv: zeroIV)
        }
    }
}
