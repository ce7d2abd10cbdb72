import DeviceSimulator
import YoullTestSupport
import Testing
import TuyaCore
import TuyaWire

@Suite("LAN client and device sessions")
struct LANSessionTests {
    @Test("3.4 and 3.5 sessions agree on one session key after START, RESP and FINISH")
    func handshake() throws {
        for version in [LANProtocolVersion.v3_4, .v3_5] {
            let (client, device, events) = connectedPair(version: version)
            #expect(events.count == 2, "\(version): \(events)")
            #expect(events.last == .established)
            #expect(client.isEstablished && device.isEstablished)
            let key = try #require(client.sessionKey)
            #expect(key == device.sessionKey)
            #expect(key != aesKey(lanKey))
        }
    }

    @Test("older versions are established at once and send nothing to start")
    func noHandshake() {
        for version in [LANProtocolVersion.v3_1, .v3_2, .v3_3] {
            var client = LANClientSession(version: version, localKey: aesKey(lanKey))
            #expect(client.isEstablished)
            #expect(client.start().isEmpty)
            #expect(client.sessionKey == nil)
        }
    }

    @Test("the START frame carries the nonce sealed with the real key, and FINISH the device nonce's HMAC")
    func handshakeFrames() throws {
        let key = aesKey(lanKey)
        var client = LANClientSession(version: .v3_4, localKey: key, random: SeededGenerator(seed: 1))
        let start = client.start()
        let message = try LANMessageCodec(version: .v3_4).decode(start, key: key, direction: .toDevice)
        #expect(message.command == .sessionKeyStart)
        #expect(message.payload.count == 16)
        #expect(message.sequence == 1)

        let deviceNonce = [UInt8](repeating: 0x42, count: 16)
        let answer = try LANMessageCodec(version: .v3_4).encode(
            LANMessage(
                command: .sessionKeyResponse, sequence: 77, retcode: 0,
                payload: LANHandshake.responsePayload(
                    localKey: key, clientNonce: message.payload, deviceNonce: deviceNonce)),
            key: key)
        let events = client.receive(answer)
        let finish = try LANMessageCodec(version: .v3_4).decode(
            #require(events.first?.sentBytes), key: key, direction: .toDevice)
        #expect(finish.command == .sessionKeyFinish)
        #expect(finish.sequence == 2)
        #expect(finish.payload == LANHandshake.finishPayload(localKey: key, deviceNonce: deviceNonce))
        #expect(
            client.sessionKey
                == (try LANHandshake.sessionKey(
                    version: .v3_4, localKey: key, clientNonce: message.payload, deviceNonce: deviceNonce)))
    }

    @Test("the 3.4 session key is AES-ECB of Nc XOR Nd under the real key (TUYA.md §2.4)")
    func sessionKey34() throws {
        let key = aesKey(lanKey)
        let nc = [UInt8](0..<16)
        let nd = [UInt8](repeating: 0xFF, count: 16)
        let mixed = zip(nc, nd).map { $0 ^ $1 }
        let derived = try LANHandshake.sessionKey(version: .v3_4, localKey: key, clientNonce: nc, deviceNonce: nd)
        #expect(derived.bytes == (try AESCipher.encryptECB(mixed, key: key)))
        #expect(
            wireError { () throws(WireError) in
                try LANHandshake.sessionKey(version: .v3_3, localKey: key, clientNonce: nc, deviceNonce: nd)
            } == .unsupportedVersion("3.3 has no session key"))
    }

    /// Vectors computed with tinytuya 1.20.0 (`_negotiate_session_key_generate_finalize`) for
    /// local key "0123456789abcdef", Nc = 00 01 … 0f and Nd = ff × 16.
    @Test(
        "session keys match tinytuya's for fixed nonces on 3.4 and 3.5",
        arguments: [
            (LANProtocolVersion.v3_4, "23c5806d4f76d403088863681a7f39fb"),
            (LANProtocolVersion.v3_5, "02c139e1e58ec2ce1fd0f2ee336941dd"),
        ])
    func sessionKeyVectors(version: LANProtocolVersion, expected: String) throws {
        let derived = try LANHandshake.sessionKey(
            version: version, localKey: aesKey(lanKey), clientNonce: [UInt8](0..<16),
            deviceNonce: [UInt8](repeating: 0xFF, count: 16))
        #expect(hexString(derived.bytes) == expected)
    }

    @Test("a device with another local key is reported as a key mismatch on 3.4 and 3.5, never as established")
    func wrongKeyHandshake() {
        for version in [LANProtocolVersion.v3_4, .v3_5] {
            let (client, _, events) = connectedPair(version: version, deviceKey: otherLANKey)
            guard case .failed(let failure)? = events.last else {
                Issue.record("\(version): expected a failure, got \(events)")
                continue
            }
            #expect(failure.isKeyMismatch, "\(version): \(failure)")
            #expect(failure.description.contains("check the local key"))
            #expect(!client.isEstablished)
        }
    }

    @Test("a device answer whose HMAC over our nonce is wrong fails the handshake")
    func hmacMismatch() throws {
        let key = aesKey(lanKey)
        var client = LANClientSession(version: .v3_5, localKey: key, random: SeededGenerator(seed: 3))
        _ = client.start()
        let forged = try LANMessageCodec(version: .v3_5).encode(
            LANMessage(
                command: .sessionKeyResponse, sequence: 1, retcode: 0, payload: [UInt8](repeating: 1, count: 48)),
            key: key, nonce: [UInt8](repeating: 2, count: 12))
        #expect(client.receive(forged) == [.failed(.handshakeHMACMismatch)])
        #expect(client.receive(forged).isEmpty)
        #expect(throws: WireError.self) { try client.encode(.dpQueryNew, json: ascii("{}")) }
    }

    @Test("a refused handshake, a wrong command or a short answer fails as malformed")
    func badAnswers() throws {
        let key = aesKey(lanKey)
        let codec = LANMessageCodec(version: .v3_4)
        let answers: [LANMessage] = [
            LANMessage(
                command: .sessionKeyResponse, sequence: 1, retcode: 1, payload: [UInt8](repeating: 0, count: 48)),
            LANMessage(command: .status, sequence: 1, retcode: 0, payload: ascii("{}")),
            LANMessage(
                command: .sessionKeyResponse, sequence: 1, retcode: 0, payload: [UInt8](repeating: 0, count: 20)),
        ]
        for answer in answers {
            var client = LANClientSession(version: .v3_4, localKey: key)
            _ = client.start()
            let events = client.receive(try codec.encode(answer, key: key))
            guard case .failed(.malformed)? = events.first else {
                Issue.record("expected malformed for \(answer.command), got \(events)")
                continue
            }
        }
    }

    @Test("data frames wait for the handshake: encode before it throws sessionNotEstablished")
    func encodeBeforeEstablished() {
        var client = LANClientSession(version: .v3_4, localKey: aesKey(lanKey))
        #expect(throws: WireError.self) { try client.encode(.dpQueryNew, json: ascii("{}")) }
        _ = client.start()
        let error = wireError { () throws(WireError) in try client.encode(.dpQueryNew, json: ascii("{}")) }
        guard case .sessionNotEstablished? = error else {
            Issue.record("expected sessionNotEstablished, got \(String(describing: error))")
            return
        }
    }

    @Test("requests and pushes travel both ways after the handshake, on every version")
    func dataBothWays() throws {
        for version in LANProtocolVersion.allCases {
            var (client, device, _) = connectedPair(version: version)
            let request = LANRequest.control(
                version: version, devId: "bf01", dps: ["20": .bool(true)], timestamp: 1_700_000_000)
            let requests = device.receive(try client.encode(request)).compactMap(\.request)
            #expect(requests.count == 1, "\(version)")
            #expect(requests.first?.command == version.controlCommand)
            #expect(try LANDataPoints.dps(in: requests.first?.payload ?? []) == ["20": .bool(true)])

            let push = LANDeviceReply.status(
                version: version, devId: "bf01", dps: ["20": .bool(true)], timestamp: 1_700_000_001)
            let ack = try device.encode(version.controlCommand, json: [])
            let status = try device.encode(.status, json: push)
            let messages = client.receive(ack + status).compactMap(\.message)
            #expect(messages.map(\.command) == [version.controlCommand, .status], "\(version)")
            #expect(messages.first?.payload.isEmpty == true)
            #expect(messages.last?.header?.source == LANVersionHeader.deviceSource || version == .v3_1)
            #expect(try LANDataPoints.dps(in: messages.last?.payload ?? []) == ["20": .bool(true)])
        }
    }

    @Test("sequence numbers count up per frame sent from firstSequence, handshake included")
    func sequences() throws {
        var client = LANClientSession(version: .v3_5, localKey: aesKey(lanKey), firstSequence: 41)
        var device = LANDeviceSession(version: .v3_5, localKey: aesKey(lanKey))
        let start = client.start()
        for bytes in device.receive(start).compactMap(\.sentBytes) {
            for finish in client.receive(bytes).compactMap(\.sentBytes) { _ = device.receive(finish) }
        }
        #expect(client.nextSequence == 43)
        let requests = device.receive(try client.encode(.dpQueryNew, json: ascii("{}"))).compactMap(\.request)
        #expect(requests.map(\.sequence) == [43])
    }

    @Test("a source id goes into the outgoing version header with the frame's sequence")
    func sourceHeader() throws {
        var client = LANClientSession(
            version: .v3_5, localKey: aesKey(lanKey), random: SeededGenerator(seed: 5), sourceID: 0x1234_5678)
        var device = LANDeviceSession(version: .v3_5, localKey: aesKey(lanKey), random: SeededGenerator(seed: 6))
        for bytes in device.receive(client.start()).compactMap(\.sentBytes) {
            for finish in client.receive(bytes).compactMap(\.sentBytes) { _ = device.receive(finish) }
        }
        let sequence = client.nextSequence
        let request = LANRequest.control(version: .v3_5, devId: "bf01", dps: ["1": .bool(false)], timestamp: 1)
        let received = device.receive(try client.encode(request)).compactMap(\.request)
        #expect(
            received.first?.header == LANVersionHeader(version: .v3_5, crc: 0, sequence: sequence, source: 0x1234_5678))
    }

    @Test("start on a used session begins a new connection with a new session key")
    func newConnectionNewKey() throws {
        let key = aesKey(lanKey)
        var client = LANClientSession(version: .v3_4, localKey: key, random: SeededGenerator(seed: 11))
        var keys: [AESKey] = []
        for round in 0..<3 {
            var device = LANDeviceSession(version: .v3_4, localKey: key, random: SeededGenerator(seed: UInt64(round)))
            for bytes in device.receive(client.start()).compactMap(\.sentBytes) {
                for finish in client.receive(bytes).compactMap(\.sentBytes) { _ = device.receive(finish) }
            }
            #expect(client.isEstablished)
            keys.append(try #require(client.sessionKey))
        }
        #expect(Set(keys).count == 3)
    }

    @Test("a 3.3 device answering with another key ends the session as a key mismatch")
    func wrongKey33() throws {
        var client = LANClientSession(version: .v3_3, localKey: aesKey(lanKey))
        var device = LANDeviceSession(version: .v3_3, localKey: aesKey(otherLANKey))
        let events = device.receive(try client.encode(LANRequest.query(version: .v3_3, devId: "bf01", timestamp: 1)))
        guard case .rejected(let command, let error)? = events.first else {
            Issue.record("the device should reject what it cannot read, got \(events)")
            return
        }
        #expect(command == .dpQuery)
        guard case .keyMismatch = error else {
            Issue.record("expected keyMismatch, got \(error)")
            return
        }
        let answer = try device.encode(.dpQuery, retcode: 1, json: LANDeviceReply.invalidRequest)
        guard case .failed(let failure)? = client.receive(answer).first else {
            Issue.record("the client should fail")
            return
        }
        #expect(failure.isKeyMismatch)
    }

    @Test("garbage from a peer ends the session as malformed; nothing comes after")
    func garbage() {
        var client = LANClientSession(version: .v3_3, localKey: aesKey(lanKey))
        let events = client.receive(ascii("SSH-2.0-OpenSSH_9.2\r\n"))
        guard case .failed(.malformed)? = events.first else {
            Issue.record("expected malformed, got \(events)")
            return
        }
        #expect(client.receive(ascii("more")).isEmpty)
        var device = LANDeviceSession(version: .v3_4, localKey: aesKey(lanKey))
        guard case .failed(.malformed)? = device.receive([UInt8](repeating: 0xEE, count: 64)).first else {
            Issue.record("device should fail on garbage")
            return
        }
    }

    @Test("bytes before start on a 3.4 session are refused")
    func bytesBeforeStart() {
        var client = LANClientSession(version: .v3_4, localKey: aesKey(lanKey))
        guard case .failed(.malformed)? = client.receive([0, 0, 0x55, 0xAA]).first else {
            Issue.record("expected a failure")
            return
        }
    }

    @Test("a FINISH signed with another key makes the device fail with an HMAC mismatch")
    func deviceChecksFinish() throws {
        let key = aesKey(lanKey)
        var device = LANDeviceSession(version: .v3_4, localKey: key, random: SeededGenerator(seed: 8))
        let codec = LANMessageCodec(version: .v3_4)
        let start = try codec.encode(
            LANMessage(command: .sessionKeyStart, sequence: 1, payload: [UInt8](repeating: 7, count: 16)), key: key)
        #expect(device.receive(start).compactMap(\.sentBytes).count == 1)
        let finish = try codec.encode(
            LANMessage(command: .sessionKeyFinish, sequence: 2, payload: [UInt8](repeating: 0, count: 32)), key: key)
        #expect(device.receive(finish) == [.failed(.handshakeHMACMismatch)])
    }

    @Test("frames split across reads and joined in one read give the same events")
    func streaming() throws {
        var (client, device, _) = connectedPair(version: .v3_4)
        var stream: [UInt8] = []
        for value in 0..<5 {
            stream += try device.encode(
                .status,
                json: LANDeviceReply.status(
                    version: .v3_4, devId: "d", dps: ["22": .integer(Int64(value))], timestamp: 1))
        }
        var messages: [LANMessage] = []
        for chunk in stride(from: 0, to: stream.count, by: 7) {
            messages += client.receive(Array(stream[chunk..<min(chunk + 7, stream.count)])).compactMap(\.message)
        }
        #expect(
            try messages.map { try LANDataPoints.dps(in: $0.payload)?["22"] } == (0..<5).map { .integer(Int64($0)) })
    }
}
