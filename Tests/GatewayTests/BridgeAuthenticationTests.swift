import Crypto
import Foundation
import Testing
import TuyaCore
import TuyaWire

@testable import Gateway

/// Signed bridge requests and sealed local keys, checked as pure values: the gateway's clock
/// is a number given to each check, so the time window is tested without waiting.
@Suite("Signed bridge requests and sealed keys")
struct BridgeAuthenticationTests {
    static let token = BridgeToken(bytes: Array(repeating: 7, count: 32))
    static let otherToken = BridgeToken(bytes: Array(repeating: 9, count: 32))
    static let now: Int64 = 1_800_000_000
    static let payload: [String: JSONValue] = ["id": .string("lamp"), "transaction": .integer(3)]

    func authenticator() -> RequestAuthenticator {
        RequestAuthenticator(token: Self.token, tokenFile: "/var/lib/youll-devices/bridge-token")
    }

    @Test("a request signed with the token is accepted, once")
    func signedAccepted() {
        var checker = authenticator()
        let signed = BridgeAuthentication.sign(
            verb: "device/remove", payload: Self.payload, token: Self.token, time: Self.now)
        #expect(checker.check(verb: "device/remove", payload: signed, now: Self.now) == nil)
        let again = checker.check(verb: "device/remove", payload: signed, now: Self.now + 5)
        #expect(again?.reason == "replayed")
        #expect(again?.message.hasPrefix("replayed request") == true)
    }

    @Test("an unsigned request is refused, saying it is not signed and where the token is")
    func unsignedRefused() {
        var checker = authenticator()
        let refusal = checker.check(verb: "device/remove", payload: Self.payload, now: Self.now)
        #expect(refusal?.reason == "unsigned")
        #expect(refusal?.message.hasPrefix("request not signed:") == true)
        #expect(refusal?.message.contains("/var/lib/youll-devices/bridge-token") == true)
        #expect(checker.check(verb: "device/remove", payload: nil, now: Self.now)?.reason == "unsigned")
        var malformed = Self.payload
        malformed["auth"] = .object(["time": .string("now"), "nonce": .string("00"), "mac": .string("00")])
        #expect(checker.check(verb: "device/remove", payload: malformed, now: Self.now)?.reason == "unsigned")
    }

    @Test("a request signed with another token, or changed after signing, has a bad signature")
    func forgedRefused() {
        var checker = authenticator()
        let forged = BridgeAuthentication.sign(
            verb: "device/remove", payload: Self.payload, token: Self.otherToken, time: Self.now)
        let refusal = checker.check(verb: "device/remove", payload: forged, now: Self.now)
        #expect(refusal?.reason == "bad_signature")
        #expect(refusal?.message.contains("bad signature") == true)

        var changed = BridgeAuthentication.sign(
            verb: "device/remove", payload: Self.payload, token: Self.token, time: Self.now)
        changed["id"] = .string("heater")
        #expect(checker.check(verb: "device/remove", payload: changed, now: Self.now)?.reason == "bad_signature")
        // Signed for one verb, sent on another.
        let moved = BridgeAuthentication.sign(
            verb: "device/refresh", payload: Self.payload, token: Self.token, time: Self.now)
        #expect(checker.check(verb: "device/remove", payload: moved, now: Self.now)?.reason == "bad_signature")
    }

    @Test("a request more than 60 s from the gateway's clock is stale; within 60 s either way it passes")
    func timeWindow() {
        var checker = authenticator()
        for (offset, accepted) in [(-61, false), (61, false), (-60, true), (60, true), (-3600, false)] {
            let signed = BridgeAuthentication.sign(
                verb: "backup", payload: [:], token: Self.token, time: Self.now + Int64(offset))
            let refusal = checker.check(verb: "backup", payload: signed, now: Self.now)
            #expect((refusal == nil) == accepted, "offset \(offset): \(refusal?.message ?? "accepted")")
            if !accepted {
                #expect(refusal?.reason == "stale")
                #expect(refusal?.message.contains("\(abs(offset)) s") == true)
            }
        }
    }

    @Test("a signed auth.time at either end of the 64-bit range is stale, not a crash")
    func extremeTimes() {
        var checker = authenticator()
        for time in [Int64.min, .min + 1, .max, -1] {
            let signed = BridgeAuthentication.sign(verb: "backup", payload: [:], token: Self.token, time: time)
            let refusal = checker.check(verb: "backup", payload: signed, now: Self.now)
            #expect(refusal?.reason == "stale", "auth.time \(time): \(refusal?.message ?? "accepted")")
        }
    }

    @Test("a nonce is forgotten only once its request is outside the window, so a late replay is stale")
    func replayAfterWindow() {
        var checker = authenticator()
        let signed = BridgeAuthentication.sign(verb: "backup", payload: [:], token: Self.token, time: Self.now)
        #expect(checker.check(verb: "backup", payload: signed, now: Self.now) == nil)
        #expect(checker.check(verb: "backup", payload: signed, now: Self.now + 60)?.reason == "replayed")
        let other = BridgeAuthentication.sign(verb: "backup", payload: [:], token: Self.token, time: Self.now + 200)
        #expect(checker.check(verb: "backup", payload: other, now: Self.now + 200) == nil)
        #expect(checker.seen.count == 1, "the first nonce is no longer needed")
        #expect(checker.check(verb: "backup", payload: signed, now: Self.now + 200)?.reason == "stale")
    }

    @Test("after a restart, a request signed before the gateway started is refused: it cannot be replayed once")
    func signedBeforeStart() {
        var checker = RequestAuthenticator(token: Self.token, tokenFile: "/t", startedAt: Self.now)
        let before = BridgeAuthentication.sign(verb: "backup", payload: [:], token: Self.token, time: Self.now - 10)
        let refusal = checker.check(verb: "backup", payload: before, now: Self.now + 5)
        #expect(refusal?.reason == "stale")
        #expect(refusal?.message.contains("before the gateway started") == true)
        let after = BridgeAuthentication.sign(verb: "backup", payload: [:], token: Self.token, time: Self.now)
        #expect(checker.check(verb: "backup", payload: after, now: Self.now + 5) == nil)
    }

    @Test("prepare seals a local key to the gateway's public key and signs the verbs that need it")
    func prepareSealsAndSigns() throws {
        let gateway = Curve25519.KeyAgreement.PrivateKey()
        let publicKey = gateway.publicKey.rawRepresentation.base64EncodedString()
        let payload: [String: JSONValue] = ["id": .string("bf1"), "local_key": .string("0123456789abcdef")]
        let prepared = try BridgeAuthentication.prepare(
            verb: "device/add", payload: payload, token: Self.token, gatewayKey: publicKey, time: Self.now)
        #expect(prepared["local_key"] == nil)
        let sealed = try #require(prepared["sealed_local_key"]?.stringValue)
        #expect(!sealed.contains("0123456789abcdef"))
        #expect(!String(decoding: CompactJSON.encode(.object(prepared)), as: UTF8.self).contains("0123456789abcdef"))
        var checker = authenticator()
        #expect(checker.check(verb: "device/add", payload: prepared, now: Self.now) == nil)
        #expect(try SealedLocalKey.open(sealed, verb: "device/add", device: "bf1", with: gateway) == "0123456789abcdef")

        // Open verbs are not signed; no key to seal without the gateway's public key.
        let health = try BridgeAuthentication.prepare(
            verb: "health_check", payload: [:], token: Self.token, gatewayKey: nil, time: Self.now)
        #expect(health["auth"] == nil)
        #expect(throws: SealingError.self) {
            try BridgeAuthentication.prepare(
                verb: "device/rekey", payload: payload, token: Self.token, gatewayKey: nil, time: Self.now)
        }
    }

    @Test("a sealed key opens only with the gateway's key, for the device and verb it was sealed for")
    func sealedKeyBinding() throws {
        let gateway = Curve25519.KeyAgreement.PrivateKey()
        let publicKey = gateway.publicKey.rawRepresentation.base64EncodedString()
        let sealed = try SealedLocalKey.seal("0123456789abcdef", verb: "device/rekey", device: "lamp", to: publicKey)
        #expect(
            try SealedLocalKey.open(sealed, verb: "device/rekey", device: "lamp", with: gateway) == "0123456789abcdef")
        for (verb, device, key) in [
            ("device/rekey", "heater", gateway), ("device/add", "lamp", gateway),
            ("device/rekey", "lamp", Curve25519.KeyAgreement.PrivateKey()),
        ] {
            #expect(throws: BridgePayloadError.self) {
                try SealedLocalKey.open(sealed, verb: verb, device: device, with: key)
            }
        }
        for garbage in ["", "hpke1:", "hpke1:!!:??", "plain", String(repeating: "A", count: 10_000)] {
            #expect(throws: BridgePayloadError.self) {
                try SealedLocalKey.open(garbage, verb: "device/rekey", device: "lamp", with: gateway)
            }
        }
        #expect(throws: SealingError.self) {
            try SealedLocalKey.seal("0123456789abcdef", verb: "device/add", device: "x", to: "not base64")
        }
    }

    @Test("the token, key and client id suffix are made once, mode 0600, and a file others can read is made 0600")
    func identityFiles() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-identity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let tokenFile = state.appendingPathComponent("bridge-token").path
        let first = try BridgeIdentity.loadOrCreate(stateDirectory: state, tokenFile: tokenFile)
        #expect(first.notices.count == 3)
        #expect(first.notices.allSatisfy { !$0.contains(Hex.string(first.token.bytes)) })
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tokenFile)
        let second = try BridgeIdentity.loadOrCreate(stateDirectory: state, tokenFile: tokenFile)
        #expect(second.token == first.token)
        #expect(second.publicKeyText == first.publicKeyText)
        #expect(second.clientIDSuffix == first.clientIDSuffix)
        #expect(second.notices == ["\(tokenFile) was readable by others; it is now mode 0600"])
        for file in ["bridge-token", "bridge-key", "client-id"] {
            let path = state.appendingPathComponent(file).path
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        }
        try "not a token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        #expect(throws: BridgeIdentityError.self) {
            try BridgeIdentity.loadOrCreate(stateDirectory: state, tokenFile: tokenFile)
        }
    }

    @Test("a token never shows in a description, a dump or a mirror")
    func tokenRedacted() throws {
        let token = try #require(BridgeToken(text: String(repeating: "ab", count: 32)))
        #expect("\(token)" == "<redacted>")
        #expect(String(reflecting: token) == "<redacted>")
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains("abab"))
        #expect(BridgeToken(text: "short") == nil)
        #expect(BridgeToken(text: String(repeating: "zz", count: 32)) == nil)
    }
}
