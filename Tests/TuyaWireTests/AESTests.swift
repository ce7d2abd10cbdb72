import Testing
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("AES-128 ECB/CBC and padding")
struct AESTests {
    let fipsKey = hexBytes("000102030405060708090a0b0c0d0e0f")
    let fipsPlaintext = hexBytes("00112233445566778899aabbccddeeff")
    let fipsCiphertext = hexBytes("69c4e0d86a7b0430d8cdb78070b4c55a")

    @Test("AES-128-ECB matches the FIPS-197 appendix C.1 known answer both ways")
    func fipsKnownAnswer() throws {
        let key = try AESKey(bytes: fipsKey)
        #expect(try AESCipher.encryptECB(fipsPlaintext, key: key) == fipsCiphertext)
        #expect(try AESCipher.decryptECB(fipsCiphertext, key: key) == fipsPlaintext)
    }

    @Test("AES-128-ECB over four blocks matches NIST SP 800-38A F.1.1/F.1.2 both ways")
    func nistMultiBlockKnownAnswer() throws {
        let key = try AESKey(bytes: hexBytes("2b7e151628aed2a6abf7158809cf4f3c"))
        let plaintext = hexBytes(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
        let ciphertext = hexBytes(
            "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                + "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4")
        #expect(try AESCipher.encryptECB(plaintext, key: key) == ciphertext)
        #expect(try AESCipher.decryptECB(ciphertext, key: key) == plaintext)
        // Every prefix of whole blocks, so the first and last block rules hold for 1...4 blocks.
        for blocks in 1...4 {
            let end = blocks * 16
            #expect(try AESCipher.encryptECB(Array(plaintext[..<end]), key: key) == Array(ciphertext[..<end]))
        }
        #expect(try AESCipher.encryptECB([], key: key) == [])
    }

    @Test("multi-block ECB decryption equals decrypting each block on its own")
    func ecbMultiBlock() throws {
        let key = try AESKey(localKey: "0123456789abcdef")
        var generator = SeededGenerator(seed: 7)
        let plaintext = (0..<80).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let ciphertext = try AESCipher.encryptECB(plaintext, key: key)
        var perBlock: [UInt8] = []
        for start in stride(from: 0, to: ciphertext.count, by: 16) {
            let block = Array(ciphertext[start..<(start + 16)])
            perBlock += try AESCipher.decryptECB(block, key: key)
            #expect(try AESCipher.encryptECB(Array(plaintext[start..<(start + 16)]), key: key) == block)
        }
        #expect(try AESCipher.decryptECB(ciphertext, key: key) == plaintext)
        #expect(perBlock == plaintext)
    }

    @Test("ECB rejects input that is not whole blocks")
    func ecbPartialBlock() throws {
        let key = try AESKey(bytes: fipsKey)
        #expect(wireError { () throws(WireError) in try AESCipher.encryptECB([1, 2, 3], key: key) } != nil)
        #expect(
            wireError { () throws(WireError) in try AESCipher.decryptECB([UInt8](repeating: 0, count: 17), key: key) }
                != nil)
    }

    @Test("CBC round trips, differs from ECB after the first block, and guards empty input and bad IVs")
    func cbcRoundTrip() throws {
        let key = try AESKey(bytes: fipsKey)
        let iv = [UInt8](repeating: 0, count: 16)
        let plaintext = fipsPlaintext + fipsPlaintext
        let ciphertext = try AESCipher.encryptCBC(plaintext, key: key, iv: iv)
        // With a zero IV the first block is plain AES.
        #expect(Array(ciphertext[0..<16]) == fipsCiphertext)
        #expect(Array(ciphertext[16..<32]) != fipsCiphertext)
        #expect(try AESCipher.decryptCBC(ciphertext, key: key, iv: iv) == plaintext)
        #expect(try AESCipher.decryptCBC([], key: key, iv: iv) == [])
        #expect(try AESCipher.encryptCBC([], key: key, iv: iv) == [])
        let badIV = wireError { () throws(WireError) in try AESCipher.decryptCBC(ciphertext, key: key, iv: [1, 2]) }
        guard case .invalidKey = badIV else {
            Issue.record("expected invalidKey, got \(String(describing: badIV))")
            return
        }
    }

    @Test("keys must be 16 bytes and never show in descriptions")
    func keyValidation() throws {
        #expect(
            wireError { () throws(WireError) in try AESKey(localKey: "short") }
                == .invalidKey("a local key is 16 characters, got 5"))
        let key = try AESKey(localKey: "0123456789abcdef")
        #expect(!key.description.contains("0123"))
        #expect(!String(describing: key).contains("abcdef"))
        #expect(!String(reflecting: key).contains("abcdef"))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("48"))  // "0" is byte 48: no key byte is listed
        #expect(!dumped.contains("abcdef"))
    }

    @Test("PKCS#7 adds a full block to block-aligned input and pads short input to the block")
    func pkcs7Pad() {
        #expect(PKCS7.pad([]) == [UInt8](repeating: 16, count: 16))
        #expect(PKCS7.pad([UInt8](repeating: 0xAA, count: 16)).suffix(16) == [UInt8](repeating: 16, count: 16)[...])
        #expect(PKCS7.pad([1, 2, 3]) == [1, 2, 3] + [UInt8](repeating: 13, count: 13))
        #expect(PKCS7.pad([UInt8](repeating: 0, count: 15)).last == 1)
    }

    @Test("PKCS#7 unpad round trips and rejects pad 0, pad above 16, mixed pad bytes and ragged lengths")
    func pkcs7Unpad() throws {
        for length in 0...33 {
            let data = [UInt8](repeating: 0x41, count: length)
            #expect(try PKCS7.unpad(PKCS7.pad(data)) == data)
        }
        let block = [UInt8](repeating: 7, count: 15)
        #expect(
            wireError { () throws(WireError) in try PKCS7.unpad(block + [0]) }
                == .badPadding("pad length 0 outside 1...16"))
        #expect(
            wireError { () throws(WireError) in try PKCS7.unpad(block + [17]) }
                == .badPadding("pad length 17 outside 1...16"))
        var mixed = [UInt8](repeating: 4, count: 16)
        mixed[13] = 3
        #expect(wireError { () throws(WireError) in try PKCS7.unpad(mixed) } == .badPadding("pad bytes differ"))
        #expect(wireError { () throws(WireError) in try PKCS7.unpad([]) } != nil)
        #expect(wireError { () throws(WireError) in try PKCS7.unpad([1, 1, 1]) } != nil)
        #expect(try PKCS7.unpad([UInt8](repeating: 16, count: 16)) == [])
    }

    @Test("zero padding leaves aligned input alone and pads the rest with zeros")
    func zeroPadding() {
        #expect(ZeroPadding.pad([]) == [])
        #expect(ZeroPadding.pad([1]) == [1] + [UInt8](repeating: 0, count: 15))
        #expect(ZeroPadding.pad([UInt8](repeating: 9, count: 16)).count == 16)
    }
}
