import Testing
import TuyaCore
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("MQTT decoders under random input")
struct MQTTFuzzTests {
    let key: AESKey
    let frame: [UInt8]

    init() throws {
        key = try AESKey(localKey: "0123456789abcdef")
        let body = TuyaEnvelope.command(dps: ["1": .bool(true), "3": .integer(500)]).encode(timestamp: 1_700_000_000)
        frame = try MQTTFrame.encode(body: body, key: key, sequence: 42, source: 1)
    }

    @Test("thousands of seeded random buffers never trap and never decode")
    func randomBuffers() {
        var generator = SeededGenerator(seed: 0x2_2022)
        let prefixes: [[UInt8]] = [[], Array("2.2".utf8), Array("2.1".utf8)]
        for round in 0..<3_000 {
            let length = Int.random(in: 0..<200, using: &generator)
            let random = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let input = prefixes[round % 3] + random
            _ = try? MQTTFrame.decodeHeader(input)
            let result = wireError { () throws(WireError) in try MQTTFrame.decode(input, key: key) }
            #expect(result != nil, "round \(round) decoded random bytes")
        }
    }

    @Test("mutations of a valid frame are rejected with a typed error or still carry a valid envelope")
    func mutations() {
        var generator = SeededGenerator(seed: 0xF00D)
        for _ in 0..<3_000 {
            var input = frame
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<max(1, input.count), using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !input.isEmpty: input[position] ^= UInt8.random(in: 1 ... .max, using: &generator)
                case 1 where !input.isEmpty: input.remove(at: position)
                case 2: input.insert(UInt8.random(in: .min ... .max, using: &generator), at: min(position, input.count))
                default: input = Array(input.prefix(position))
                }
            }
            do {
                let decoded = try MQTTFrame.decode(input, key: key)
                // Only a mutation that left the frame intact can decode.
                #expect(decoded.body.count > 0)
                _ = try? TuyaEnvelope.decode(decoded.body)
            } catch {
                switch error {
                case .truncated, .malformed, .unsupportedVersion, .checksumMismatch, .keyMismatch, .lengthOutOfRange:
                    break
                default:
                    Issue.record("unexpected error \(error)")
                }
            }
        }
    }

    @Test("random bodies framed with the right key decode to the same bytes or a key-mismatch, never a trap")
    func randomBodies() throws {
        var generator = SeededGenerator(seed: 31)
        for _ in 0..<500 {
            let body = (0..<Int.random(in: 0..<100, using: &generator)).map { _ in
                UInt8.random(in: .min ... .max, using: &generator)
            }
            let encoded = try MQTTFrame.encode(body: body, key: key, sequence: 1, source: 1)
            do {
                #expect(try MQTTFrame.decode(encoded, key: key).body == body)
            } catch {
                #expect(error == .keyMismatch("MQTT 2.2 body is not a JSON object after decryption"))
            }
            _ = try? TuyaEnvelope.decode(body)
        }
    }
}
