import DeviceSimulator
import Testing
import TuyaWire
import YoullTestSupport

/// Every key keeps its CBC contexts (libcrypto) for all its calls, and keys ECB for each: what
/// comes out must be what swift-crypto computes with a fresh key each time, whatever was done
/// with the key before, from however many tasks at once.
@Suite("AES-128 CBC on a key's kept contexts, and ECB")
struct AESContextsTests {
    @Test("CBC matches NIST SP 800-38A F.2.1 and F.2.2")
    func cbcKnownAnswer() throws {
        let key = try AESKey(bytes: hexBytes("2b7e151628aed2a6abf7158809cf4f3c"))
        let iv = hexBytes("000102030405060708090a0b0c0d0e0f")
        let plaintext = hexBytes(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
        let ciphertext = hexBytes(
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
        #expect(try AESCipher.encryptCBC(plaintext, key: key, iv: iv) == ciphertext)
        #expect(try AESCipher.decryptCBC(ciphertext, key: key, iv: iv) == plaintext)
    }

    @Test("one key, call after call with a new IV each time: every length as swift-crypto, nothing chained over")
    func cbcCallAfterCall() throws {
        var generator = SeededGenerator(seed: 17)
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let raw = bytes(16)
        let key = try AESKey(bytes: raw)
        for blocks in 1...16 {
            for _ in 0..<3 {
                let (plaintext, iv) = (bytes(blocks * 16), bytes(16))
                let expected = try SwiftCryptoAES.cbcEncrypt(plaintext, key: raw, iv: iv)
                #expect(try AESCipher.encryptCBC(plaintext, key: key, iv: iv) == expected, "\(blocks) blocks")
                #expect(try AESCipher.decryptCBC(expected, key: key, iv: iv) == plaintext, "\(blocks) blocks")
                // ECB between two CBC calls of the same key.
                #expect(try AESCipher.encryptECB(plaintext, key: key) == SwiftCryptoAES.ecbEncrypt(plaintext, key: raw))
                #expect(try AESCipher.decryptECB(expected, key: key) == SwiftCryptoAES.ecbDecrypt(expected, key: raw))
            }
        }
    }

    @Test("a failed call (a bad IV, a partial block) leaves the key working")
    func failedCallsLeaveTheKeyWorking() throws {
        let raw = Array("0123456789abcdef".utf8)
        let key = try AESKey(bytes: raw)
        let iv = [UInt8](repeating: 9, count: 16)
        let plaintext = [UInt8](repeating: 0x41, count: 48)
        #expect(wireError { () throws(WireError) in try AESCipher.encryptCBC(plaintext, key: key, iv: [1]) } != nil)
        #expect(wireError { () throws(WireError) in try AESCipher.decryptCBC([1, 2, 3], key: key, iv: iv) } != nil)
        #expect(wireError { () throws(WireError) in try AESCipher.decryptECB([1, 2, 3], key: key) } != nil)
        #expect(
            try AESCipher.encryptCBC(plaintext, key: key, iv: iv)
                == SwiftCryptoAES.cbcEncrypt(plaintext, key: raw, iv: iv))
        #expect(try AESCipher.encryptECB(plaintext, key: key) == SwiftCryptoAES.ecbEncrypt(plaintext, key: raw))
    }

    @Test("copies of one key used from many tasks at once each get their own call's result")
    func concurrentCallsOnOneKey() async throws {
        let raw = Array("fedcba9876543210".utf8)
        let key = try AESKey(bytes: raw)
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                let copy = key
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(100 + task))
                    var wrong = 0
                    for round in 0..<200 {
                        let count = 16 * (1 + round % 6)
                        let plaintext = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                        let iv = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
                        let sealed = try AESCipher.encryptCBC(plaintext, key: copy, iv: iv)
                        if sealed != (try SwiftCryptoAES.cbcEncrypt(plaintext, key: raw, iv: iv)) { wrong += 1 }
                        if try AESCipher.decryptCBC(sealed, key: copy, iv: iv) != plaintext { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
