import Testing
import TuyaWire
import YoullTestSupport

@Suite("BLE keys (TUYA.md §1.4)")
struct BLEKeysTests {
    @Test("login and session keys match the TUYA.md vectors")
    func vectors() throws {
        let keys = try BLEVectors.sessionKeys()
        #expect(hexString(try keys.key(for: .login).bytes) == "d6a9a933c8aafc51e55ac0662b6e4d4a")
        #expect(hexString(try keys.key(for: .session).bytes) == "a776a41c02fd75d3831a926549482d93")
        #expect(keys.loginFlag == .login)
        #expect(keys.sessionFlag == .session)
    }

    @Test("sec_key login and session keys match the TUYA.md vectors and use flags 14 and 15")
    func secKeyVectors() throws {
        let keys = try BLEVectors.sessionKeys(secKey: BLEVectors.secKey)
        #expect(hexString(try keys.key(for: .secKeyLogin).bytes) == "957b49743a06a938c9246950faadbaa9")
        #expect(hexString(try keys.key(for: .secKeySession).bytes) == "316fa9b0eab1ca83b7ffff2e97379659")
        #expect(keys.loginFlag == .secKeyLogin)
        #expect(keys.sessionFlag == .secKeySession)
        // The plain login key stays available for a device that answers with flag 4.
        #expect(hexString(try keys.key(for: .login).bytes) == "d6a9a933c8aafc51e55ac0662b6e4d4a")
    }

    @Test("session keys need the srand first, and a srand is exactly 6 bytes")
    func sessionNeedsSrand() throws {
        var keys = try BLEKeys(localKey: BLEVectors.localKey)
        #expect(!keys.hasSession)
        guard case .invalidKey = bleError({ () throws(WireError) in try keys.key(for: .session) }) else {
            Issue.record("session key without srand")
            return
        }
        #expect(throws: WireError.self) { try keys.establishSession(srand: [1, 2, 3]) }
        try keys.establishSession(srand: BLEVectors.srand)
        #expect(keys.hasSession)
        let first = try keys.key(for: .session)
        keys.endSession()
        #expect(!keys.hasSession)
        // The keys are derived once per session: none outlives its session, and a new srand
        // (the next connection) gives a new one.
        guard case .invalidKey = bleError({ () throws(WireError) in try keys.key(for: .session) }) else {
            Issue.record("a session key after the session ended")
            return
        }
        try keys.establishSession(srand: [9, 8, 7, 6, 5, 4])
        #expect(try keys.key(for: .session) != first)
    }

    @Test("flags without key material are refused: sec_key flags without a sec_key, and flags 0 to 3")
    func missingMaterial() throws {
        let keys = try BLEVectors.sessionKeys()
        for flag in [BLESecurityFlag.secKeyLogin, .secKeySession, .none, .key1, .key2, .key3] {
            guard case .invalidKey = bleError({ () throws(WireError) in try keys.key(for: flag) }) else {
                Issue.record("flag \(flag) gave a key")
                continue
            }
        }
    }

    @Test("a local key or sec_key of the wrong length or not ASCII is refused without echoing it")
    func badKeys() {
        for bad in ["0123456789abcde", "0123456789abcdef0", "0123456789abcdé", ""] {
            let error = bleError { () throws(WireError) in try BLEKeys(localKey: bad) }
            #expect(error != nil)
            #expect(!(error?.description.contains(bad) ?? true) || bad.isEmpty)
        }
        #expect(throws: WireError.self) { try BLEKeys(localKey: BLEVectors.localKey, secKey: "short") }
    }

    @Test("descriptions never show the local key or a derived key")
    func redacted() throws {
        let keys = try BLEVectors.sessionKeys(secKey: BLEVectors.secKey)
        let text = "\(keys) \(String(describing: keys)) \(try keys.key(for: .session))"
        #expect(!text.contains(BLEVectors.localKey))
        #expect(!text.contains("012345"))
        #expect(!text.contains(BLEVectors.secKey))
        #expect(!text.contains("a776a41c"))
    }
}
