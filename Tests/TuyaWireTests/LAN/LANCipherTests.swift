import Crypto
import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// The LAN session ciphers (contexts keyed once per key and reused for every frame) checked
/// against an implementation they do not share: swift-crypto's one-shot AES-GCM, HMAC-SHA256
/// and AES-ECB, frame after frame under one session key.
@Suite("LAN session ciphers against swift-crypto")
struct LANCipherTests {
    /// JSON bodies of every length from 0 to 70 bytes, so padding and GCM's partial last
    /// block fall everywhere.
    static let bodies: [[UInt8]] = (0...70).map { length in
        length == 0 ? [] : ascii("{\"1\":\"" + String(repeating: "x", count: max(0, length - 8)) + "\"}")
    }

    @Test("3.5 frames from a session open with swift-crypto's AES-GCM, and its frames open in the session")
    func gcmAgainstSwiftCrypto() throws {
        var (client, device, _) = connectedPair(version: .v3_5)
        let key = SymmetricKey(data: try #require(client.sessionKey).bytes)
        for body in Self.bodies where !body.isEmpty {
            let pushed = try device.encode(.status, json: body)
            let opened = try Self.openGCM(pushed, key: key)
            // retcode (4) ‖ version header (15) ‖ body
            #expect(Array(opened.dropFirst(19)) == body)
            #expect(client.receive(pushed).compactMap(\.message).first?.payload == body)

            let sealed = try Self.sealGCM(
                command: 8, sequence: 900,
                plaintext: [0, 0, 0, 0] + ascii("3.5") + [UInt8](repeating: 0, count: 12) + body,
                key: key)
            #expect(client.receive(sealed).compactMap(\.message).first?.payload == body, "\(body.count) bytes")
        }
        #expect(client.isEstablished)
    }

    @Test("3.4 frames carry the HMAC-SHA256 swift-crypto computes, and their body decrypts with its AES-ECB")
    func hmacAndECBAgainstSwiftCrypto() throws {
        var (client, device, _) = connectedPair(version: .v3_4)
        let sessionKey = try #require(client.sessionKey)
        let key = SymmetricKey(data: sessionKey.bytes)
        for body in Self.bodies where !body.isEmpty {
            let pushed = try device.encode(.status, json: body)
            let checked = pushed.count - 36
            let mac = Array(HMAC<SHA256>.authenticationCode(for: pushed[..<checked], using: key))
            #expect(Array(pushed[checked..<(checked + 32)]) == mac, "\(body.count) bytes")
            // prefix, seqno, cmd, length, retcode: 20 bytes; then header ‖ body, ECB
            let plaintext = try PKCS7.unpad(
                SwiftCryptoAES.ecbDecrypt(Array(pushed[20..<checked]), key: sessionKey.bytes))
            #expect(Array(plaintext.dropFirst(15)) == body)
            #expect(client.receive(pushed).compactMap(\.message).first?.payload == body)
        }
        #expect(client.isEstablished)
    }

    @Test("3.3 frames encrypt their body as swift-crypto's AES-ECB does, frame after frame")
    func ecbAgainstSwiftCrypto() throws {
        var client = LANClientSession(version: .v3_3, localKey: aesKey(lanKey))
        for body in Self.bodies where !body.isEmpty {
            let frame = try client.encode(.control, json: body)
            // prefix, seqno, cmd, length: 16 bytes; the clear header (15); ECB; CRC and suffix (8)
            let ciphertext = Array(frame[31..<(frame.count - 8)])
            #expect(try PKCS7.unpad(SwiftCryptoAES.ecbDecrypt(ciphertext, key: aesKey(lanKey).bytes)) == body)
        }
    }

    @Test("a 3.5 frame altered in its header, nonce, ciphertext or tag is refused and nothing of it delivered")
    func gcmTamper() throws {
        let codec = LANMessageCodec(version: .v3_5)
        let key = aesKey(lanKey)
        let frame = try codec.encode(
            LANMessage(command: .status, sequence: 3, retcode: 0, payload: ascii("{\"dps\":{\"1\":true}}")), key: key,
            nonce: [UInt8](repeating: 5, count: 12))
        // reserved (4), sequence (6), nonce (18), ciphertext (30), tag (count - 20)
        for offset in [4, 6, 18, 30, frame.count - 20, frame.count - 5] {
            var altered = frame
            altered[offset] ^= 0x01
            let error = wireError { () throws(WireError) in
                _ = try codec.decode(altered, key: key, direction: .fromDevice)
            }
            #expect(error == .authenticationFailed(what: "LAN 6699 AES-GCM tag"), "byte \(offset)")
        }
        #expect(try codec.decode(frame, key: key, direction: .fromDevice).payload == ascii("{\"dps\":{\"1\":true}}"))
    }

    /// Opens a 6699 frame with swift-crypto: AAD is the 14 bytes after the prefix.
    static func openGCM(_ frame: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        let box = try AES.GCM.SealedBox(combined: frame[18..<(frame.count - 4)])
        return Array(try AES.GCM.open(box, using: key, authenticating: frame[4..<18]))
    }

    /// A 6699 frame sealed by swift-crypto.
    static func sealGCM(command: UInt32, sequence: UInt32, plaintext: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        func be(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let nonce = [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: 12)
        let header = [0, 0, 0x66, 0x99, 0, 0] + be(sequence) + be(command) + be(UInt32(12 + plaintext.count + 16))
        let box = try AES.GCM.seal(
            plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: header[4...])
        return header + nonce + Array(box.ciphertext) + Array(box.tag) + [0, 0, 0x99, 0x66]
    }
}
