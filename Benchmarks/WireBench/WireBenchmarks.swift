import Foundation
import TuyaCore
import TuyaWire

/// Encode/decode throughput of both Tuya codecs on one typical body, beside the floor:
/// the same AES and checksum work through the same libraries with no framing or JSON.
struct WireBenchmarks {
    var options: BenchOptions

    func run() throws {
        let key = try AESKey(localKey: "0123456789abcdef")
        let body = Array(options.body.utf8)
        let (envelope, timestamp) = try TuyaEnvelope.decode(body)
        print("# wire: body \(body.count) bytes, \(options.seconds) s per figure, best of 3")

        // MQTT "2.2": typed envelope → JSON → PKCS#7 → AES-ECB → CRC-32, and back.
        var sequence: UInt32 = 0
        let frame = try MQTTFrame.encode(body: envelope.encode(timestamp: timestamp), key: key, sequence: 1, source: 1)
        report(
            "mqtt22.encode",
            try rate(seconds: options.seconds) {
                sequence &+= 1
                blackHole(
                    try MQTTFrame.encode(
                        body: envelope.encode(timestamp: timestamp), key: key, sequence: sequence, source: 1))
            }, "frames/s")
        report(
            "mqtt22.decode",
            try rate(seconds: options.seconds) {
                let decoded = try MQTTFrame.decode(frame, key: key)
                blackHole(try TuyaEnvelope.decode(decoded.body))
            }, "frames/s")

        // Floor for MQTT: the same bytes through PKCS#7, AES-ECB and CRC-32 only.
        let ciphertext = try AESCipher.encryptECB(PKCS7.pad(body), key: key)
        report(
            "floor.aes-crc32.encrypt",
            try rate(seconds: options.seconds) {
                let sealed = try AESCipher.encryptECB(PKCS7.pad(body), key: key)
                blackHole(CRC32.checksum(sealed))
            }, "frames/s")
        report(
            "floor.aes-crc32.decrypt",
            try rate(seconds: options.seconds) {
                blackHole(CRC32.checksum(ciphertext))
                blackHole(try PKCS7.unpad(AESCipher.decryptECB(ciphertext, key: key)))
            }, "frames/s")

        try runBLE(envelope: envelope)
    }

    /// BLE: the same DPs as a v4 DP write (0x0027), session-key encrypted, cut into
    /// 20-byte packets; decoding reassembles, decrypts and parses the DP list.
    private func runBLE(envelope: TuyaEnvelope) throws {
        var keys = try BLEKeys(localKey: "0123456789abcdef")
        try keys.establishSession(srand: [1, 2, 3, 4, 5, 6])
        let sessionKey = try keys.key(for: .session)
        let dataPoints = try bleDataPoints(from: envelope)
        let fragmenter = BLEFragmenter(protocolVersion: 4)
        var ivs = CountingIVSource()
        var sn: UInt32 = 0

        func encodeOnce() throws -> [[UInt8]] {
            sn &+= 1
            let write = try BLEDataPointWriteV4(sn: sn, dataPoints: dataPoints).encoded()
            let frame = try BLECommandFrame(sn: sn, command: .dpWriteV4, data: write)
            let sealed = try BLEFrameCodec.encrypt(frame, flag: .session, keys: keys, ivSource: &ivs)
            return try fragmenter.packets(for: sealed)
        }
        let packets = try encodeOnce()
        print("# ble: \(dataPoints.count) DPs, v4 write, \(packets.count) packets")

        report("ble.dpframe.encode", try rate(seconds: options.seconds) { blackHole(try encodeOnce()) }, "frames/s")
        report(
            "ble.dpframe.decode",
            try rate(seconds: options.seconds) {
                var reassembler = BLEReassembler()
                var whole: [UInt8]?
                for packet in packets { whole = try reassembler.receive(packet) }
                guard let whole else { throw WireError.malformed("benchmark frame did not reassemble") }
                let (_, frame) = try BLEFrameCodec.decrypt(whole, keys: keys)
                blackHole(try BLEDataPointWriteV4(bytes: frame.data))
            }, "frames/s")

        // Floor for BLE: the plaintext frame through zero padding, AES-CBC and CRC-16 only.
        let plain = try BLECommandFrame(
            sn: 1, command: .dpWriteV4, data: BLEDataPointWriteV4(sn: 1, dataPoints: dataPoints).encoded()
        ).encoded
        let iv = [UInt8](repeating: 7, count: 16)
        let sealed = try AESCipher.encryptCBC(ZeroPadding.pad(plain), key: sessionKey, iv: iv)
        report(
            "floor.aes-cbc-crc16.encrypt",
            try rate(seconds: options.seconds) {
                blackHole(CRC16Modbus.checksum(plain))
                blackHole(try AESCipher.encryptCBC(ZeroPadding.pad(plain), key: sessionKey, iv: iv))
            }, "frames/s")
        report(
            "floor.aes-cbc-crc16.decrypt",
            try rate(seconds: options.seconds) {
                let opened = try AESCipher.decryptCBC(sealed, key: sessionKey, iv: iv)
                blackHole(CRC16Modbus.checksum(opened[0..<plain.count]))
            }, "frames/s")
    }

    /// The body's `dps` as BLE data points (bool, value or string by JSON type).
    private func bleDataPoints(from envelope: TuyaEnvelope) throws -> [BLEDataPoint] {
        guard case .command(let dps) = envelope else { throw WireError.malformed("benchmark body is not a command") }
        return try dps.keys.sorted().map { key throws -> BLEDataPoint in
            guard let id = DataPointID(jsonKey: key) else { throw WireError.malformed("bad DP key \(key)") }
            switch dps[key] {
            case .bool(let value): return .bool(id, value)
            case .integer(let value): return .value(id, Int32(clamping: value))
            case .string(let value): return try .string(id, value)
            default: throw WireError.malformed("unsupported DP value for \(key)")
            }
        }
    }
}

/// Deterministic IVs: the benchmark measures the codec, not the random generator.
struct CountingIVSource: IVSource {
    var counter: UInt8 = 0

    mutating func nextIV() -> [UInt8] {
        counter &+= 1
        return [UInt8](repeating: counter, count: 16)
    }
}
