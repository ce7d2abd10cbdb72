/// The AES keys of one BLE connection, derived from the device's local key
/// (protocol/TUYA.md §1.4):
///
/// * flag 4, login key: `MD5(local_key[0:6])`, the first six ASCII characters;
/// * flag 5, session key: `MD5(local_key[0:6] ‖ srand)`, srand being the six random
///   bytes of the device-info reply (§1.7), so every connection has a fresh key;
/// * flags 14/15, only when the cloud returned a `sec_key` (HTB `security.py`):
///   `MD5(local_key ‖ sec_key)` and `MD5(local_key ‖ sec_key ‖ srand)`, with the
///   whole local key.
///
/// Neither the local key nor any derived key appears in `description` or in errors.
public struct BLEKeys: Sendable, CustomStringConvertible {
    private let localKey: [UInt8]
    private let secKey: [UInt8]?
    /// The device's srand once the device-info reply arrived.
    public private(set) var srand: [UInt8]?
    /// The keys derived so far, each once: the login keys at `init`, the session keys when
    /// the srand arrives (every frame is sealed with one, and deriving it is an MD5).
    private let loginKey: AESKey
    private let secKeyLoginKey: AESKey?
    private var sessionKey: AESKey?
    private var secKeySessionKey: AESKey?

    /// `localKey` is the 16-character Tuya local key; `secKey` the optional 16-character
    /// cloud `sec_key`.
    public init(localKey: String, secKey: String? = nil) throws(WireError) {
        let localKey = try Self.asciiKey(localKey, name: "local key")
        let secKey = try secKey.map { (key) throws(WireError) in try Self.asciiKey(key, name: "sec_key") }
        self.localKey = localKey
        self.secKey = secKey
        loginKey = try AESKey(bytes: MD5Digest.hash(Array(localKey[0..<6])))
        secKeyLoginKey = try secKey.map { (secKey) throws(WireError) in
            try AESKey(bytes: MD5Digest.hash(localKey + secKey))
        }
    }

    public var hasSecKey: Bool { secKey != nil }
    public var hasSession: Bool { srand != nil }

    /// The flag to send the device-info request with: 14 with a sec_key, else 4.
    public var loginFlag: BLESecurityFlag { hasSecKey ? .secKeyLogin : .login }
    /// The flag for pairing and DP traffic: 15 with a sec_key, else 5.
    public var sessionFlag: BLESecurityFlag { hasSecKey ? .secKeySession : .session }

    /// Records the srand from the device-info reply, enabling the session keys.
    public mutating func establishSession(srand: [UInt8]) throws(WireError) {
        guard srand.count == 6 else { throw .invalidKey("srand must be 6 bytes, got \(srand.count)") }
        self.srand = srand
        sessionKey = try AESKey(bytes: MD5Digest.hash(Array(localKey[0..<6]) + srand))
        secKeySessionKey = try secKey.map { (secKey) throws(WireError) in
            try AESKey(bytes: MD5Digest.hash(localKey + secKey + srand))
        }
    }

    public mutating func endSession() {
        srand = nil
        sessionKey = nil
        secKeySessionKey = nil
    }

    /// The key a frame with `flag` is encrypted with. A session key exists once the srand
    /// has arrived, a sec_key one when there is a sec_key: a key missing says which is missing.
    public func key(for flag: BLESecurityFlag) throws(WireError) -> AESKey {
        let key: AESKey?
        switch flag {
        case .login: key = loginKey
        case .session: key = sessionKey
        case .secKeyLogin: key = secKeyLoginKey
        case .secKeySession: key = secKeySessionKey
        case .none, .key1, .key2, .key3:
            throw .invalidKey("no key for security flag \(flag.rawValue) (needs the factory auth key)")
        }
        if let key { return key }
        guard secKey != nil || !flag.needsSecKey else {
            throw .invalidKey("flag \(flag.rawValue) needs the cloud sec_key")
        }
        throw .invalidKey("flag \(flag.rawValue) needs the srand of the device-info reply first")
    }

    public var description: String {
        "BLEKeys(<redacted>, secKey: \(hasSecKey), session: \(hasSession))"
    }

    private static func asciiKey(_ key: String, name: String) throws(WireError) -> [UInt8] {
        let bytes = Array(key.utf8)
        guard bytes.count == 16, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw .invalidKey("a \(name) is 16 printable ASCII characters, got \(bytes.count) bytes")
        }
        return bytes
    }
}

extension BLESecurityFlag {
    /// Flags 14 and 15, whose keys are derived from the cloud's sec_key.
    fileprivate var needsSecKey: Bool { self == .secKeyLogin || self == .secKeySession }
}
