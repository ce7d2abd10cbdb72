import Testing
import TuyaCore
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("MQTT 2.2 frames")
struct MQTTFrameTests {
    let key: AESKey
    /// `{"protocol":4,"t":1700000000,"data":{"devId":"bf0123","dps":{"1":true,"3":255}}}`
    /// framed with sequence 0x01020304, source 1 and key `0123456789abcdef`, computed
    /// independently with `openssl enc -aes-128-ecb` and Python's `zlib.crc32`.
    let vector = hexBytes(
        "322e3211427da601020304000000017ab3e01f8314d131c08fe99a6cab7be580d8ec1cdb6e2ac83188"
            + "3039ed6f4dc30ccc9ea09455fed2bb31f3edf22b30e394ca85721ddf1194c9365228469f205629d6"
            + "2a942e8b62edc0e65a5a1f8bb814377222e061a924c591cd9c27ea163ed4")
    let body = Array(#"{"protocol":4,"t":1700000000,"data":{"devId":"bf0123","dps":{"1":true,"3":255}}}"#.utf8)

    init() throws {
        key = try AESKey(localKey: "0123456789abcdef")
    }

    @Test("encoding reproduces the independently computed vector byte for byte")
    func knownVector() throws {
        let report = TuyaEnvelope.report(devId: "bf0123", dps: ["1": .bool(true), "3": .integer(255)], t: nil)
        #expect(report.encode(timestamp: 1_700_000_000) == body)
        let frame = try MQTTFrame.encode(body: body, key: key, sequence: 0x0102_0304, source: MQTTFrame.deviceSource)
        #expect(frame == vector)
    }

    @Test("the header lays out version, big-endian CRC over sequence‖source‖ciphertext, sequence and source")
    func layout() throws {
        let frame = try MQTTFrame.encode(body: body, key: key, sequence: 0xA1B2_C3D4, source: 1)
        #expect(Array(frame[0..<3]) == Array("2.2".utf8))
        #expect(Array(frame[7..<11]) == [0xA1, 0xB2, 0xC3, 0xD4])
        #expect(Array(frame[11..<15]) == [0, 0, 0, 1])
        let ciphertext = Array(frame[15...])
        #expect(ciphertext == (try AESCipher.encryptECB(PKCS7.pad(body), key: key)))
        #expect(ciphertext.count == 96)
        let crc = CRC32.checksum(Array(frame[7...]))
        #expect(
            Array(frame[3..<7]) == [
                UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF),
            ])
        let header = try MQTTFrame.decodeHeader(frame)
        #expect(header.version == "2.2")
        #expect(header.crc == crc)
        #expect(header.sequence == 0xA1B2_C3D4)
        #expect(header.source == 1)
        #expect(header.ciphertext == ciphertext)
    }

    @Test("decoding the vector gives the header fields and the plaintext body")
    func decodeVector() throws {
        let decoded = try MQTTFrame.decode(vector, key: key)
        #expect(decoded == DecodedMQTTFrame(version: "2.2", sequence: 0x0102_0304, source: 1, body: body))
    }

    @Test(
        "reports, commands and queries round trip through a frame",
        arguments: [
            TuyaEnvelope.report(devId: "bf0123", dps: ["1": .bool(true), "22": .string("colour")], t: 1_700_000_001),
            TuyaEnvelope.report(devId: nil, dps: [:], t: nil),
            TuyaEnvelope.command(dps: ["1": .bool(false), "3": .integer(1000), "5": .string("00f003e803e8")]),
            TuyaEnvelope.query(dpIDs: nil),
            TuyaEnvelope.query(dpIDs: [1, 2, 20]),
        ])
    func roundTrip(envelope: TuyaEnvelope) throws {
        let frame = try MQTTFrame.encode(
            body: envelope.encode(timestamp: 1_700_000_123), key: key, sequence: 77, source: 1)
        let decoded = try MQTTFrame.decode(frame, key: key)
        #expect(decoded.sequence == 77)
        let (message, timestamp) = try TuyaEnvelope.decode(decoded.body)
        #expect(message == envelope)
        #expect(timestamp == 1_700_000_123)
    }

    @Test("a wrong local key on an intact frame is a key mismatch, not corruption")
    func wrongKey() throws {
        let other = try AESKey(localKey: "fedcba9876543210")
        let error = wireError { () throws(WireError) in try MQTTFrame.decode(vector, key: other) }
        guard case .keyMismatch = error else {
            Issue.record("expected keyMismatch, got \(String(describing: error))")
            return
        }
        #expect(!(error?.description.contains("fedcba") ?? true))
        // Many wrong keys: never anything but keyMismatch, never a body.
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<300 {
            let random = try AESKey(bytes: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            let result = wireError { () throws(WireError) in try MQTTFrame.decode(vector, key: random) }
            guard case .keyMismatch = result else {
                Issue.record("expected keyMismatch, got \(String(describing: result))")
                return
            }
        }
    }

    @Test("a flipped bit anywhere after the CRC is a checksum mismatch")
    func flippedBit() throws {
        for position in [7, 12, 15, 40, vector.count - 1] {
            var corrupt = vector
            corrupt[position] ^= 0x10
            let error = wireError { () throws(WireError) in try MQTTFrame.decode(corrupt, key: key) }
            #expect(
                error
                    == .checksumMismatch(
                        what: "MQTT 2.2 CRC-32", expected: 0x1142_7DA6, actual: CRC32.checksum(corrupt[7...])))
        }
        var badCRC = vector
        badCRC[3] ^= 0x01
        let error = wireError { () throws(WireError) in try MQTTFrame.decodeHeader(badCRC) }
        guard case .checksumMismatch(_, let expected, let actual) = error else {
            Issue.record("expected checksumMismatch, got \(String(describing: error))")
            return
        }
        #expect(expected == 0x1042_7DA6)
        #expect(actual == 0x1142_7DA6)
    }

    @Test("short and ragged frames are truncated or malformed, each with its own error")
    func truncation() {
        func decode(_ bytes: [UInt8]) -> WireError? {
            wireError { () throws(WireError) in try MQTTFrame.decode(bytes, key: key) }
        }
        #expect(decode([]) == .truncated(what: "MQTT frame version", needed: 3, available: 0))
        #expect(decode(Array("2.".utf8)) == .truncated(what: "MQTT frame version", needed: 3, available: 2))
        #expect(decode(Array(vector[0..<14])) == .truncated(what: "MQTT 2.2 header", needed: 15, available: 14))
        #expect(decode(Array(vector[0..<15])) == .truncated(what: "MQTT 2.2 ciphertext", needed: 16, available: 0))
        #expect(
            decode(Array(vector[0..<30])) == .malformed("MQTT 2.2 ciphertext of 15 bytes is not whole 16-byte blocks"))
        #expect(decode(vector + [0]) == .malformed("MQTT 2.2 ciphertext of 97 bytes is not whole 16-byte blocks"))
    }

    @Test("an unknown version is unsupported, shown as text or hex")
    func unknownVersion() {
        var frame = vector
        frame[2] = UInt8(ascii: "3")
        #expect(
            wireError { () throws(WireError) in try MQTTFrame.decode(frame, key: key) }
                == .unsupportedVersion("\"2.3\""))
        #expect(
            wireError { () throws(WireError) in try MQTTFrame.decodeHeader([0, 0xFF, 7, 1]) }
                == .unsupportedVersion("0x00ff07"))
        #expect(
            wireError { () throws(WireError) in try MQTTFrame.decodeHeader(Array("3.3xxxxxxxxxxxxxxxxxxx".utf8)) }
                == .unsupportedVersion("\"3.3\""))
    }

    @Test("frames and bodies over 64 KiB are refused")
    func oversized() {
        let big = Array("2.2".utf8) + [UInt8](repeating: 0, count: 65_534)
        #expect(
            wireError { () throws(WireError) in try MQTTFrame.decode(big, key: key) }
                == .lengthOutOfRange(field: "MQTT frame", value: 65_537, limit: 65_536))
        let body = [UInt8](repeating: 0x20, count: 65_536)
        guard
            case .lengthOutOfRange = wireError({ () throws(WireError) in
                try MQTTFrame.encode(body: body, key: key, sequence: 0, source: 1)
            })
        else {
            Issue.record("expected lengthOutOfRange")
            return
        }
        let largest = [UInt8](repeating: 0x20, count: 65_519)
        #expect((try? MQTTFrame.encode(body: largest, key: key, sequence: 0, source: 1))?.count == 65_535)
        #expect(
            wireError { () throws(WireError) in
                try MQTTFrame.encode(body: largest + [0x20], key: key, sequence: 0, source: 1)
            } == .lengthOutOfRange(field: "MQTT 2.2 body", value: 65_520, limit: 65_519))
    }

    @Test("a correctly framed body that is not a JSON object is reported as a key mismatch")
    func nonJSONBody() throws {
        for text in ["[1,2]", "hello", "", "{\u{01}}", "{"] {
            let frame = try MQTTFrame.encode(body: Array(text.utf8), key: key, sequence: 1, source: 1)
            guard case .keyMismatch = wireError({ () throws(WireError) in try MQTTFrame.decode(frame, key: key) })
            else {
                Issue.record("expected keyMismatch for \(text)")
                continue
            }
        }
        let spaced = try MQTTFrame.encode(body: Array(" {} \n".utf8), key: key, sequence: 1, source: 1)
        #expect(try MQTTFrame.decode(spaced, key: key).body == Array(" {} \n".utf8))
    }

    @Test("tuya-convert's 2.2 variant with ASCII digits in the sequence slot decodes")
    func tuyaConvertVariant() throws {
        let ciphertext = try AESCipher.encryptECB(PKCS7.pad(body), key: key)
        let slot = Array("12345678".utf8)
        let crc = CRC32.checksum(slot + ciphertext)
        let frame =
            Array("2.2".utf8) + [
                UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF),
            ] + slot + ciphertext
        let decoded = try MQTTFrame.decode(frame, key: key)
        #expect(decoded.body == body)
        #expect(decoded.sequence == 0x3132_3334)
    }
}
