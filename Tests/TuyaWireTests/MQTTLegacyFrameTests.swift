import Testing
import TuyaWire

@Suite("MQTT 2.1 legacy frames")
struct MQTTLegacyFrameTests {
    let key: AESKey
    let body = Array(#"{"protocol":4,"t":1700000000,"data":{"devId":"bf0123","dps":{"1":true,"3":255}}}"#.utf8)
    /// The same body as the 2.2 vector, signed and base64-encoded as tuya-convert's
    /// `mq_pub_15.py` does, computed independently with Python's hashlib and openssl.
    let vector = Array(
        ("2.1c9595a764ee4c3e3erPgH4MU0THAj+mabKt75YDY7BzbbirIMYgwOe1vTcMMzJ6glFX+0rsx8+3yKzDjlMqFch3fEZTJNlIoRp8gVinWKpQ"
            + "ui2LtwOZaWh+LuBQ3ciLgYakkxZHNnCfqFj7U").utf8)

    init() throws {
        key = try AESKey(localKey: "0123456789abcdef")
    }

    @Test("encoding reproduces the independently computed 2.1 vector")
    func knownVector() throws {
        #expect(try MQTTLegacyFrame.encode(body: body, key: key) == vector)
    }

    @Test("decoding a 2.1 frame, directly or through MQTTFrame.decode, gives the body and no sequence")
    func decode() throws {
        let expected = DecodedMQTTFrame(version: "2.1", sequence: nil, source: nil, body: body)
        #expect(try MQTTLegacyFrame.decode(vector, key: key) == expected)
        #expect(try MQTTFrame.decode(vector, key: key) == expected)
    }

    @Test("an uppercase signature is accepted")
    func uppercaseSignature() throws {
        var frame = vector
        for index in 3..<19 where frame[index] >= UInt8(ascii: "a") { frame[index] -= 0x20 }
        #expect(try MQTTLegacyFrame.decode(frame, key: key).body == body)
    }

    @Test("a wrong key and a corrupted signature or payload both fail the signature as a key mismatch")
    func signatureMismatch() throws {
        let message = "MQTT 2.1 signature does not match: wrong local key or corrupted frame"
        let other = try AESKey(localKey: "fedcba9876543210")
        #expect(
            wireError { () throws(WireError) in try MQTTLegacyFrame.decode(vector, key: other) }
                == .keyMismatch(message))
        var badSignature = vector
        badSignature[5] = badSignature[5] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(
            wireError { () throws(WireError) in try MQTTLegacyFrame.decode(badSignature, key: key) }
                == .keyMismatch(message))
        var badPayload = vector
        badPayload[30] = badPayload[30] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(
            wireError { () throws(WireError) in try MQTTLegacyFrame.decode(badPayload, key: key) }
                == .keyMismatch(message))
    }

    @Test("short frames, bad base64 and ragged ciphertext have their own errors")
    func structure() {
        func decode(_ bytes: [UInt8]) -> WireError? {
            wireError { () throws(WireError) in try MQTTLegacyFrame.decode(bytes, key: key) }
        }
        #expect(decode(Array(vector[0..<19])) == .truncated(what: "MQTT 2.1 frame", needed: 43, available: 19))
        #expect(decode(Array(vector[0..<2])) == .truncated(what: "MQTT frame version", needed: 3, available: 2))
        #expect(
            decode(Array(vector[0..<19]) + Array("@@@@".utf8)) == .malformed("MQTT 2.1 payload is not valid base64"))
        #expect(decode(Array(vector.dropLast())) == .malformed("MQTT 2.1 payload is not valid base64"))
        #expect(
            decode(Array(vector[0..<19]) + Array("AAAA".utf8))
                == .malformed("MQTT 2.1 ciphertext of 3 bytes is not whole 16-byte blocks"))
        #expect(decode(Array("2.2abc".utf8)) == .unsupportedVersion("\"2.2\""))
    }

    @Test("2.1 bodies round trip, and oversized bodies are refused")
    func roundTripAndLimit() throws {
        for length in [0, 1, 15, 16, 17, 100] {
            let text = "{" + String(repeating: " ", count: max(0, length - 2)) + "}"
            let frame = try MQTTLegacyFrame.encode(body: Array(text.utf8), key: key)
            #expect(try MQTTLegacyFrame.decode(frame, key: key).body == Array(text.utf8))
        }
        let largest = [UInt8](repeating: 0x20, count: 49_135)
        #expect(try MQTTLegacyFrame.encode(body: largest, key: key).count <= MQTTFrame.maxFrameSize)
        guard
            case .lengthOutOfRange = wireError({ () throws(WireError) in
                try MQTTLegacyFrame.encode(body: largest + [0], key: key)
            })
        else {
            Issue.record("expected lengthOutOfRange")
            return
        }
    }
}
