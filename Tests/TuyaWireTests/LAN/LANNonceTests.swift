import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire

/// The 12-byte nonces of 3.5 frames when a session draws from the system generator (as the
/// gateway's do): read from the process's pool of system random bytes, each byte handed out
/// once, so no two frames under one session key share a nonce, even from copies of one
/// session value.
@Suite("3.5 frame nonces from the system generator")
struct LANNonceTests {
    /// The nonce of a 6699 frame: the 12 bytes after its 18-byte header.
    static func nonce(_ frame: [UInt8]) -> [UInt8] { Array(frame[18..<30]) }

    @Test("a 3.5 session, a copy of it and a second session never send the same nonce")
    func noncesNeverRepeat() throws {
        let key = aesKey(lanKey)
        var client = LANClientSession(version: .v3_5, localKey: key)
        var device = LANDeviceSession(version: .v3_5, localKey: key)
        for answer in device.receive(client.start()).compactMap(\.sentBytes) {
            for finish in client.receive(answer).compactMap(\.sentBytes) { _ = device.receive(finish) }
        }
        #expect(client.isEstablished && device.isEstablished)
        var copy = client
        var other = LANClientSession(version: .v3_5, localKey: key)
        _ = other.start()
        let body = Array(#"{"protocol":5,"t":1,"data":{"dps":{"20":true}}}"#.utf8)
        var seen = Set<[UInt8]>()
        // Far more bytes than the pool holds, so it is refilled many times on the way.
        for round in 0..<1500 {
            let frames = [
                try client.encode(.controlNew, json: body), try copy.encode(.controlNew, json: body),
                other.start(),
            ]
            for frame in frames {
                #expect(seen.insert(Self.nonce(frame)).inserted, "round \(round): a nonce came twice")
            }
        }
        #expect(seen.count == 4500)
        // The frames still open at the device: the nonce is the one the frame carries.
        guard case .request(let opened)? = device.receive(try copy.encode(.controlNew, json: body)).first else {
            Issue.record("the device did not open a frame from the copy")
            return
        }
        #expect(opened.payload == body)
    }

    @Test("a seeded generator is still drawn from directly: the same seed gives the same frames")
    func seededSessionsAreReproducible() throws {
        let key = aesKey(lanKey)
        var first = LANClientSession(version: .v3_5, localKey: key, random: SeededGenerator(seed: 11))
        var second = LANClientSession(version: .v3_5, localKey: key, random: SeededGenerator(seed: 11))
        #expect(first.start() == second.start())
        #expect(first.start() == second.start())
    }
}
