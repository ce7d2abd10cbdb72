import DeviceSimulator
import YoullTestSupport
import Testing
import TuyaCore
import TuyaWire

@Suite("LAN decoders under random input")
struct LANFuzzTests {
    let key = aesKey(lanKey)

    private func mutate(_ frame: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
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
        return input
    }

    @Test("mutations of a valid frame of every version are refused with a typed error or decode intact")
    func mutations() throws {
        var generator = SeededGenerator(seed: 0x55AA)
        let json = ascii(#"{"protocol":4,"t":1,"data":{"dps":{"1":true,"3":"large"}}}"#)
        for version in LANProtocolVersion.allCases {
            let codec = LANMessageCodec(version: version)
            let frame = try codec.encode(
                LANMessage(command: .status, sequence: 9, retcode: 0, payload: json), key: key,
                nonce: [UInt8](repeating: 1, count: 12))
            for _ in 0..<1_000 {
                let input = mutate(frame, using: &generator)
                guard input != frame else { continue }
                do {
                    let message = try codec.decode(input, key: key, direction: .fromDevice)
                    // Only 3.1's plaintext and an unchanged ciphertext can survive a mutation.
                    #expect(version == .v3_1 || message.payload == json, "\(version)")
                } catch {
                    switch error {
                    case .truncated, .malformed, .checksumMismatch, .keyMismatch, .lengthOutOfRange,
                        .authenticationFailed:
                        break
                    default:
                        Issue.record("\(version): unexpected error \(error)")
                    }
                }
            }
        }
    }

    @Test("random bytes into client and device sessions of every version end in a failure, never a trap")
    func randomSessions() {
        var generator = SeededGenerator(seed: 0x6699)
        for round in 0..<600 {
            let version = LANProtocolVersion.allCases[round % 5]
            let prefix: [UInt8] = round % 3 == 0 ? LAN55AAFrame.prefix : round % 3 == 1 ? LAN6699Frame.prefix : []
            let input =
                prefix
                + (0..<Int.random(in: 0..<200, using: &generator)).map { _ in
                    UInt8.random(in: .min ... .max, using: &generator)
                }
            var client = LANClientSession(version: version, localKey: key, random: SeededGenerator(seed: 1))
            _ = client.start()
            for event in client.receive(input) {
                if case .message = event { Issue.record("round \(round): random bytes made a message") }
            }
            var device = LANDeviceSession(version: version, localKey: key, random: SeededGenerator(seed: 2))
            for event in device.receive(input) {
                if case .request = event { Issue.record("round \(round): random bytes made a request") }
            }
        }
    }
}
