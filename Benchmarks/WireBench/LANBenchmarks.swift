import Foundation
import TuyaCore
import TuyaWire

/// Tuya LAN codec throughput for protocol 3.3, 3.4 and 3.5 on one typical body, through
/// the session state machines the gateway uses (after the handshake): encoding a request
/// (version header, AES-ECB or GCM with a fresh nonce, CRC-32 or HMAC, framing) and
/// decoding a device's STATUS push (frame reader, integrity check, decryption, header
/// removal, reading the dps). The same work as tinytuya's `_encode_message` and
/// `unpack_message` + `_decode_payload` in Benchmarks/tinytuya/bench_tinytuya.py.
struct LANBenchmarks {
    var options: BenchOptions

    func run() throws {
        let localKey = try AESKey(localKey: "0123456789abcdef")
        let body = Array(options.body.utf8)
        print("# lan: body \(body.count) bytes, \(options.seconds) s per figure, best of 3")
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            var client = LANClientSession(version: version, localKey: localKey)
            var device = LANDeviceSession(version: version, localKey: localKey)
            for event in device.receive(client.start()) {
                guard case .send(let answer) = event else { continue }
                for case .send(let finish) in client.receive(answer) { _ = device.receive(finish) }
            }
            guard client.isEstablished, device.isEstablished else {
                throw WireError.malformed("benchmark handshake for \(version) did not finish")
            }
            let name = version.benchName
            report(
                "\(name).encode",
                try rate(seconds: options.seconds) { blackHole(try client.encode(version.controlCommand, json: body)) },
                "frames/s")
            let push = try device.encode(.status, json: body)
            report(
                "\(name).decode",
                try rate(seconds: options.seconds) {
                    guard case .message(let message)? = client.receive(push).first else {
                        throw WireError.malformed("benchmark push did not decode")
                    }
                    blackHole(try LANDataPoints.dps(in: message.payload))
                }, "frames/s")
        }
        // The part of every decode figure above that is reading the body's dps (the JSON alone).
        report(
            "lan.decode.dps-only",
            try rate(seconds: options.seconds) { blackHole(try LANDataPoints.dps(in: body)) }, "bodies/s")
        try LANCryptoFloor(seconds: options.seconds, bodySize: body.count).run()
    }
}
