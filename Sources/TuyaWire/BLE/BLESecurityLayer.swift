/// The security envelope around every BLE command frame (protocol/TUYA.md §1.4):
/// `flag (1) ‖ IV (16) ‖ AES-128-CBC(key, IV, zero-padded plaintext)`, or
/// `flag 0 ‖ plaintext` when unencrypted.
///
/// Parsing only splits the envelope; `open(key:)` decrypts. Tuya pads with zeros,
/// not PKCS#7, so the plaintext comes back with its padding: the command frame's
/// `len` field finds the end (`BLECommandFrame(bytes:)`).
public struct BLESecurityLayer: Hashable, Sendable {
    public let flag: BLESecurityFlag
    /// 16 bytes when encrypted, empty for `.none`.
    public let iv: [UInt8]
    /// Ciphertext, or the plaintext itself for `.none`.
    public let payload: [UInt8]

    public init(bytes: [UInt8]) throws(WireError) {
        guard let first = bytes.first else {
            throw .truncated(what: "BLE security layer", needed: 1, available: 0)
        }
        guard let flag = BLESecurityFlag(rawValue: first) else { throw .unknownSecurityFlag(first) }
        self.flag = flag
        guard flag.isEncrypted else {
            iv = []
            payload = Array(bytes.dropFirst())
            return
        }
        guard bytes.count >= 1 + 16 + 16 else {
            throw .truncated(what: "BLE encrypted frame", needed: 33, available: bytes.count)
        }
        let ciphertextCount = bytes.count - 17
        guard ciphertextCount % 16 == 0 else {
            throw .malformed("BLE ciphertext of \(ciphertextCount) bytes is not whole 16-byte blocks")
        }
        iv = Array(bytes[1..<17])
        payload = Array(bytes[17...])
    }

    /// Encrypts `plaintext` (zero-padded here) with `key` under `flag`; `key` is ignored for `.none`.
    public init(sealing plaintext: [UInt8], flag: BLESecurityFlag, key: AESKey?, iv: [UInt8]) throws(WireError) {
        self.flag = flag
        guard flag.isEncrypted else {
            self.iv = []
            payload = plaintext
            return
        }
        guard let key else { throw .invalidKey("security flag \(flag.rawValue) needs a key") }
        guard iv.count == 16 else { throw .invalidKey("a BLE IV is 16 bytes, got \(iv.count)") }
        self.iv = iv
        payload = try AESCipher.encryptCBC(ZeroPadding.pad(plaintext), key: key, iv: iv)
    }

    /// The same, drawing the IV from `ivSource`.
    public init(
        sealing plaintext: [UInt8], flag: BLESecurityFlag, key: AESKey?, ivSource: inout some IVSource
    ) throws(WireError) {
        try self.init(sealing: plaintext, flag: flag, key: key, iv: flag.isEncrypted ? ivSource.nextIV() : [])
    }

    public var encoded: [UInt8] { [flag.rawValue] + iv + payload }

    /// The plaintext, still zero-padded when it was encrypted; `key` is ignored for `.none`.
    public func open(key: AESKey?) throws(WireError) -> [UInt8] {
        guard flag.isEncrypted else { return payload }
        guard let key else { throw .invalidKey("security flag \(flag.rawValue) needs a key") }
        return try AESCipher.decryptCBC(payload, key: key, iv: iv)
    }
}
