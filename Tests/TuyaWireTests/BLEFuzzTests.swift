import Testing
import TuyaCore
import TuyaWire
import DeviceSimulator
import YoullTestSupport

/// Seeded random and mutated inputs through every BLE decoder: none may trap, and
/// whatever decodes must re-encode to something that decodes to the same value.
@Suite("BLE decoders under random and mutated input")
struct BLEFuzzTests {
    static let seeds: [[UInt8]] = {
        var samples: [[UInt8]] = [
            hexBytes("00 01020304 00 00 0b 02 0004 00000057"),
            hexBytes("00 01020304 69 01 0001 01"),
            hexBytes("69 01 01 01 6a 02 04 0000003c"),
            [0] + Array("1700000000123".utf8) + hexBytes("69 01 01 00"),
            Array("1700000000123".utf8) + [3, 0x20],
            [23, 11, 14, 22, 13, 20, 1, 0, 0],
            BLEBodyTests.deviceInfoBytes(extended: true),
            (try? BLEPairRequest(uuid: "tuya1234abcd5678", loginKeyPrefix: "012345", devId: "dev").encoded) ?? [],
            hexBytes("00 0014"),
            BLESecurityLayerTests.deviceInfoRequest,
            ZeroPadding.pad((try? BLECommandFrame(sn: 1, command: .dpWriteV4, data: [1, 2, 3]).encoded) ?? []),
        ]
        samples += (try? BLEFragmenter(protocolVersion: 3).packets(for: BLESecurityLayerTests.deviceInfoRequest)) ?? []
        return samples
    }()

    static func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return generator.bytes(Int.random(in: 0...120, using: &generator))
        case 1:
            if !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            }
        case 2: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
        case 3:
            bytes.insert(
                UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator))
        case 4: if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &generator)) }
        default: bytes += generator.bytes(Int.random(in: 1...8, using: &generator))
        }
        return bytes
    }

    @Test("five thousand random and mutated inputs never trap any decoder, and decoded values round-trip")
    func fuzz() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let keys = try BLEVectors.sessionKeys()
        var reassembler = BLEReassembler(maxFrameLength: 256)
        let spec = DataPointSpec(id: bleDP(11), code: "fault", type: .enumeration, values: ["a", "b"])
        var decodedCount = 0
        for _ in 0..<5000 {
            let seed = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &generator)]
            let input = Self.mutate(seed, using: &generator)

            if let varint = try? Varint(bytes: input) {
                #expect(try Varint(bytes: Varint(varint.value).encoded).value == varint.value)
            }
            _ = try? reassembler.receive(input)
            if let layer = try? BLESecurityLayer(bytes: input) {
                #expect(try BLESecurityLayer(bytes: layer.encoded) == layer)
            }
            if let frame = try? BLECommandFrame(bytes: input) {
                decodedCount += 1
                #expect(try BLECommandFrame(bytes: frame.encoded) == frame)
            }
            _ = try? BLEFrameCodec.decrypt(input, keys: keys)
            for format in [BLEDataPointList.Format.v3, .v4] {
                if let list = try? BLEDataPointList(bytes: input, format: format) {
                    decodedCount += 1
                    #expect(try BLEDataPointList(bytes: list.encoded, format: format) == list)
                    for dp in list.dataPoints where dp.id == spec.id { _ = try? dp.value(spec: spec) }
                }
            }
            if var info = try? BLEDeviceInfo(bytes: input) {
                // An ignored tail is not encoded again: what was read round-trips.
                info.ignoredTail = nil
                #expect(try BLEDeviceInfo(bytes: info.encoded()) == info)
            }
            if let request = try? BLEDeviceInfoRequest(bytes: input) { #expect(request.encoded == input) }
            if let pair = try? BLEPairRequest(bytes: input) { #expect(pair.encoded == input) }
            if let result = try? BLEPairResult(bytes: input) { #expect(result.encoded == input) }
            if let time = try? BLETimeStringReply(bytes: input) { #expect(time.encoded == input) }
            if let date = try? BLETimeDateReply(bytes: input) { #expect(date.encoded == input) }
            if let write = try? BLEDataPointWriteV4(bytes: input) {
                decodedCount += 1
                #expect(try BLEDataPointWriteV4(bytes: write.encoded()) == write)
            }
            if let response = try? BLEDataPointWriteV4Response(bytes: input) { #expect(response.encoded == input) }
            for command in [BLECommand.dpReportV3, .dpReportV3WithTime] {
                if let report = try? BLEDataPointReportV3(bytes: input, command: command) {
                    #expect(try BLEDataPointReportV3(bytes: report.encoded(), command: command) == report)
                }
            }
            for command in [BLECommand.dpReportV4, .dpReportV4WithTime] {
                if let report = try? BLEDataPointReportV4(bytes: input, command: command) {
                    decodedCount += 1
                    #expect(try BLEDataPointReportV4(bytes: report.encoded(), command: command) == report)
                }
            }
        }
        // The mutations must leave enough valid inputs for the round-trip checks to mean something.
        #expect(decodedCount > 250)
    }
}
