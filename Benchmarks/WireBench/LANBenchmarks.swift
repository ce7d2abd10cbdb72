import Foundation
import TuyaCore
import TuyaWire

/// Tuya LAN codec throughput for protocol 3.3, 3.4 and 3.5 on one typical body: encoding a
/// request (version header, AES-ECB or GCM, CRC-32 or HMAC, framing) and decoding a
/// device's answer (integrity check, decryption, header removal, reading the dps), the
/// same work tinytuya's `_encode_message` and `unpack_message` + `_decode_payload` do in
/// Benchmarks/tinytuya/bench_tinytuya.py.
struct LANBenchmarks {
    var options: BenchOptions

    func run() throws {
        let localKey = try AESKey(localKey: "0123456789abcdef")
        let sessionKey = try AESKey(localKey: "SessionKey-16byt")
        let body = Array(options.body.utf8)
        print("# lan: body \(body.count) bytes, \(options.seconds) s per figure, best of 3")
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            let key = version.negotiatesSessionKey ? sessionKey : localKey
            let codec = LANMessageCodec(version: version)
            let name = "lan" + version.rawValue.replacingOccurrences(of: ".", with: "")
            var sequence: UInt32 = 0
            var nonce = [UInt8](repeating: 0, count: 12)
            report(
                "\(name).encode",
                try rate(seconds: options.seconds) {
                    sequence &+= 1
                    nonce[0] = UInt8(truncatingIfNeeded: sequence)
                    nonce[1] = UInt8(truncatingIfNeeded: sequence >> 8)
                    let message = LANMessage(command: version.controlCommand, sequence: sequence, payload: body)
                    blackHole(try codec.encode(message, key: key, nonce: version.usesGCMFrames ? nonce : nil))
                }, "frames/s")
            let answer = try codec.encode(
                LANMessage(
                    command: .status, sequence: 1, retcode: 0, payload: body,
                    header: LANVersionHeader(version: version, sequence: 1, source: 1)),
                key: key, nonce: [UInt8](repeating: 7, count: 12))
            report(
                "\(name).decode",
                try rate(seconds: options.seconds) {
                    let message = try codec.decode(answer, key: key, direction: .fromDevice)
                    blackHole(try LANDataPoints.dps(in: message.payload))
                }, "frames/s")
        }
    }
}
