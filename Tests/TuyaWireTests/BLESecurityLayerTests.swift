import Testing
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("BLE security layer and frame codec (TUYA.md §1.4)")
struct BLESecurityLayerTests {
    static let iv = (0..<16).map { UInt8($0) }
    /// Cross-checked with Python `cryptography`: AES-128-CBC(login key of the §1.4
    /// local key, IV 00…0f, zero-padded device-info request with sn 1).
    static let deviceInfoRequest = hexBytes(
        "04 000102030405060708090a0b0c0d0e0f 35a7c0a89c84145e2ce517b648d9d45a")

    @Test("the device-info request encrypts to the cross-checked bytes with the login key")
    func knownAnswer() throws {
        let keys = try BLEKeys(localKey: BLEVectors.localKey)
        let frame = try BLECommandFrame(sn: 1, command: .deviceInfo)
        var ivSource = BLEFixedIVSource(iv: Self.iv)
        #expect(
            try BLEFrameCodec.encrypt(frame, flag: .login, keys: keys, ivSource: &ivSource) == Self.deviceInfoRequest)
        #expect(
            try BLEFrameCodec.encrypt(frame, flag: .login, key: keys.key(for: .login), iv: Self.iv)
                == Self.deviceInfoRequest)
        let decoded = try BLEFrameCodec.decrypt(Self.deviceInfoRequest, keys: keys)
        #expect(decoded.flag == .login)
        #expect(decoded.frame == frame)
    }

    @Test("flag 0 sends the plaintext after the flag, with no IV")
    func unencrypted() throws {
        let frame = try BLECommandFrame(sn: 2, command: .query)
        let bytes = try BLEFrameCodec.encrypt(frame, flag: .none, key: nil, iv: [])
        #expect(bytes == [0] + frame.encoded)
        let decoded = try BLEFrameCodec.decrypt(bytes, keys: BLEKeys(localKey: BLEVectors.localKey))
        #expect(decoded.flag == .none && decoded.frame == frame)
    }

    @Test("a broken unencrypted frame is malformed, not a key problem")
    func unencryptedMalformed() throws {
        var bytes = [0] + (try BLECommandFrame(sn: 2, command: .query).encoded)
        bytes[12] = 0x7F
        guard
            case .malformed = bleError({ () throws(WireError) in
                try BLEFrameCodec.decrypt(bytes, keys: BLEKeys(localKey: BLEVectors.localKey))
            })
        else {
            Issue.record("not malformed")
            return
        }
    }

    @Test("the envelope splits into flag, IV and ciphertext and re-encodes identically")
    func envelope() throws {
        let layer = try BLESecurityLayer(bytes: Self.deviceInfoRequest)
        #expect(layer.flag == .login && layer.iv == Self.iv && layer.payload.count == 16)
        #expect(layer.encoded == Self.deviceInfoRequest)
    }

    @Test("an encrypted frame shorter than flag, IV and one block is truncated at every length")
    func truncated() {
        for length in 1..<33 {
            #expect(throws: WireError.truncated(what: "BLE encrypted frame", needed: 33, available: length)) {
                try BLESecurityLayer(bytes: Array(Self.deviceInfoRequest.prefix(length)))
            }
        }
        #expect(throws: WireError.truncated(what: "BLE security layer", needed: 1, available: 0)) {
            try BLESecurityLayer(bytes: [])
        }
    }

    @Test("ciphertext that is not whole blocks is malformed")
    func partialBlock() {
        for extra in 1..<16 {
            let bytes = Self.deviceInfoRequest + [UInt8](repeating: 0, count: extra)
            guard case .malformed = bleError({ () throws(WireError) in try BLESecurityLayer(bytes: bytes) }) else {
                Issue.record("\(extra) extra bytes accepted")
                continue
            }
        }
    }

    @Test("an unknown security flag is named in the error", arguments: [6, 7, 13, 16, 0xFF] as [UInt8])
    func unknownFlag(flag: UInt8) {
        #expect(throws: WireError.unknownSecurityFlag(flag)) {
            try BLESecurityLayer(bytes: [flag] + Self.deviceInfoRequest.dropFirst())
        }
    }

    @Test("decrypting with another device's key is a key mismatch, not corruption")
    func wrongKey() throws {
        let right = try BLEVectors.sessionKeys()
        var wrong = try BLEKeys(localKey: "fedcba9876543210")
        try wrong.establishSession(srand: BLEVectors.srand)
        var ivSource = RandomIVSource(generator: SeededGenerator(seed: 5))
        for sn in 1...200 as ClosedRange<UInt32> {
            let data = (0..<Int(sn % 40)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let frame = try BLECommandFrame(sn: sn, command: .dpWriteV4, data: data)
            let bytes = try BLEFrameCodec.encrypt(frame, flag: .session, keys: right, ivSource: &ivSource)
            let error = bleError { () throws(WireError) in try BLEFrameCodec.decrypt(bytes, keys: wrong) }
            guard case .keyMismatch = error else {
                Issue.record("sn \(sn): \(String(describing: error))")
                continue
            }
            #expect(error?.description.contains("check the local key") == true)
        }
    }

    @Test("a damaged data block with an intact header is a checksum mismatch")
    func corrupted() throws {
        let keys = try BLEVectors.sessionKeys()
        let frame = try BLECommandFrame(sn: 3, command: .dpWriteV4, data: [UInt8](repeating: 0x42, count: 40))
        var ivSource = BLEFixedIVSource(iv: Self.iv)
        let bytes = try BLEFrameCodec.encrypt(frame, flag: .session, keys: keys, ivSource: &ivSource)
        // Flipping IV byte 14 flips plaintext byte 14 (data) only.
        var ivDamage = bytes
        ivDamage[1 + 14] ^= 0x10
        // Flipping a byte of ciphertext block 1 garbles plaintext block 1 and one byte of block 2: all data.
        var blockDamage = bytes
        blockDamage[17 + 16 + 3] ^= 0x01
        for damaged in [ivDamage, blockDamage] {
            guard
                case .checksumMismatch = bleError({ () throws(WireError) in
                    try BLEFrameCodec.decrypt(damaged, keys: keys)
                })
            else {
                Issue.record("damage not reported as checksum mismatch")
                continue
            }
        }
    }

    @Test("a session frame before the srand is known asks for the key material, not a wrong key")
    func noSession() throws {
        let keys = try BLEVectors.sessionKeys()
        var ivSource = BLEFixedIVSource(iv: Self.iv)
        let bytes = try BLEFrameCodec.encrypt(
            try BLECommandFrame(sn: 1, command: .pair), flag: .session, keys: keys, ivSource: &ivSource)
        guard
            case .invalidKey = bleError({ () throws(WireError) in
                try BLEFrameCodec.decrypt(bytes, keys: BLEKeys(localKey: BLEVectors.localKey))
            })
        else {
            Issue.record("not invalidKey")
            return
        }
    }

    @Test("sealing refuses a missing key and an IV that is not 16 bytes")
    func sealingLimits() throws {
        let key = try BLEVectors.sessionKeys().key(for: .session)
        #expect(throws: WireError.self) { try BLESecurityLayer(sealing: [1], flag: .session, key: nil, iv: Self.iv) }
        #expect(throws: WireError.self) { try BLESecurityLayer(sealing: [1], flag: .session, key: key, iv: [1, 2]) }
    }

    @Test("the system IV source gives 16-byte IVs that differ")
    func systemIVs() {
        var source = RandomIVSource()
        let a = source.nextIV()
        let b = source.nextIV()
        #expect(a.count == 16 && b.count == 16 && a != b)
    }
}
