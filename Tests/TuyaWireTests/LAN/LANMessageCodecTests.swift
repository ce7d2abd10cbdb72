import YoullTestSupport
import Testing
import TuyaWire

@Suite("LAN payload rules per protocol version")
struct LANMessageCodecTests {
    let key = aesKey(lanKey)
    let json = ascii(#"{"devId":"bf01","dps":{"1":true},"t":"1700000000","uid":"bf01"}"#)
    let nonce = [UInt8](repeating: 0x5A, count: 12)

    @Test("every version round-trips a request and an answer, with the retcode on answers only")
    func roundTrips() throws {
        for version in LANProtocolVersion.allCases {
            let codec = LANMessageCodec(version: version)
            let request = LANMessage(command: .control, sequence: 3, payload: json)
            let bytes = try codec.encode(request, key: key, nonce: nonce)
            let decoded = try codec.decode(bytes, key: key, direction: .toDevice)
            #expect(decoded.command == .control, "\(version)")
            #expect(decoded.sequence == 3)
            #expect(decoded.retcode == nil)
            #expect(decoded.payload == json, "\(version)")

            let answer = LANMessage(command: .dpQuery, sequence: 4, retcode: 0, payload: json)
            let reply = try codec.decode(codec.encode(answer, key: key, nonce: nonce), key: key, direction: .fromDevice)
            #expect(reply.retcode == 0, "\(version)")
            #expect(reply.payload == json, "\(version)")
        }
    }

    @Test("3.3 puts the clear version header \"3.3\" + 12 zero bytes before the ECB ciphertext (TUYA.md §2.3)")
    func clearHeader33() throws {
        let bytes = try LANMessageCodec(version: .v3_3).encode(
            LANMessage(command: .control, sequence: 1, payload: json), key: key)
        let frame = try LAN55AAFrame.decode(bytes, direction: .toDevice, integrity: .crc32)
        #expect(Array(frame.payload.prefix(15)) == ascii("3.3") + [UInt8](repeating: 0, count: 12))
        let ciphertext = Array(frame.payload.dropFirst(15))
        #expect(try PKCS7.unpad(AESCipher.decryptECB(ciphertext, key: key)) == json)
    }

    @Test("3.2 is sent like 3.3 with \"3.2\" in its header")
    func version32() throws {
        let bytes = try LANMessageCodec(version: .v3_2).encode(
            LANMessage(command: .control, sequence: 1, payload: json), key: key)
        let frame = try LAN55AAFrame.decode(bytes, direction: .toDevice, integrity: .crc32)
        #expect(Array(frame.payload.prefix(3)) == ascii("3.2"))
        #expect((frame.payload.count - 15) % 16 == 0)
    }

    @Test("commands on the skip list get no version header in 3.3, 3.4 and 3.5 (TT NO_PROTOCOL_HEADER_CMDS)")
    func skipList() throws {
        let skipped: [LANCommand] = [.dpQuery, .dpQueryNew, .updateDPs, .heartBeat, .lanExtStream]
        for command in skipped {
            #expect(!command.carriesVersionHeader)
            let bytes = try LANMessageCodec(version: .v3_3).encode(
                LANMessage(command: command, sequence: 1, payload: ascii("{}")), key: key)
            let frame = try LAN55AAFrame.decode(bytes, direction: .toDevice, integrity: .crc32)
            #expect(frame.payload.count == 16, "\(command) carries only its ciphertext")

            let plain34 = try AESCipher.decryptECB(
                LAN55AAFrame.decode(
                    LANMessageCodec(version: .v3_4).encode(
                        LANMessage(command: command, sequence: 1, payload: ascii("{}")), key: key),
                    direction: .toDevice, integrity: .hmac(key)
                ).payload, key: key)
            #expect(try PKCS7.unpad(plain34) == ascii("{}"))
        }
        for command in [LANCommand.control, .controlNew, .status] { #expect(command.carriesVersionHeader) }
    }

    @Test("3.4 encrypts the version header together with the JSON and signs with HMAC-SHA256")
    func header34InsideCiphertext() throws {
        let bytes = try LANMessageCodec(version: .v3_4).encode(
            LANMessage(command: .controlNew, sequence: 1, payload: json), key: key)
        let frame = try LAN55AAFrame.decode(bytes, direction: .toDevice, integrity: .hmac(key))
        #expect(!frame.payload.starts(with: ascii("3.4")))
        let plain = try PKCS7.unpad(AESCipher.decryptECB(frame.payload, key: key))
        #expect(Array(plain.prefix(15)) == ascii("3.4") + [UInt8](repeating: 0, count: 12))
        #expect(Array(plain.dropFirst(15)) == json)
    }

    @Test("3.5 seals the version header and JSON with GCM in a 6699 frame")
    func header35InsideGCM() throws {
        let bytes = try LANMessageCodec(version: .v3_5).encode(
            LANMessage(command: .controlNew, sequence: 1, payload: json), key: key, nonce: nonce)
        let frame = try LAN6699Frame.decode(bytes, direction: .toDevice, key: key)
        #expect(frame.payload == ascii("3.5") + [UInt8](repeating: 0, count: 12) + json)
    }

    @Test("a source header in front of an incoming payload is taken off and its fields read")
    func sourceHeaderStripped() throws {
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            let codec = LANMessageCodec(version: version)
            let header = LANVersionHeader(version: version, crc: 0, sequence: 0xBFF9, source: 1)
            let push = LANMessage(command: .status, sequence: 9, retcode: 0, payload: json, header: header)
            let decoded = try codec.decode(codec.encode(push, key: key, nonce: nonce), key: key, direction: .fromDevice)
            #expect(decoded.header == header, "\(version)")
            #expect(decoded.payload == json)
        }
    }

    @Test("an acknowledgement with no body is no payload bytes at all")
    func emptyAck() throws {
        for version in LANProtocolVersion.allCases {
            let codec = LANMessageCodec(version: version)
            let bytes = try codec.encode(
                LANMessage(command: .control, sequence: 1, retcode: 0, payload: []), key: key, nonce: nonce)
            if !version.usesGCMFrames {
                let trailer = version == .v3_4 ? 36 : 8
                #expect(bytes.count == 16 + 4 + trailer, "\(version)")
            }
            #expect(try codec.decode(bytes, key: key, direction: .fromDevice).payload.isEmpty)
        }
    }

    @Test("3.1 signs and encrypts CONTROL only; queries travel as plaintext JSON")
    func legacy31() throws {
        let codec = LANMessageCodec(version: .v3_1)
        let control = try LAN55AAFrame.decode(
            codec.encode(LANMessage(command: .control, sequence: 1, payload: json), key: key), direction: .toDevice,
            integrity: .crc32)
        #expect(control.payload.starts(with: ascii("3.1")))
        let signature = control.payload[3..<19]
        #expect(signature.allSatisfy { ascii("0123456789abcdef").contains($0) })
        let query = try LAN55AAFrame.decode(
            codec.encode(LANMessage(command: .dpQuery, sequence: 2, payload: ascii("{}")), key: key),
            direction: .toDevice, integrity: .crc32)
        #expect(query.payload == ascii("{}"))
    }

    @Test("a 3.1 CONTROL whose signature does not match the key is a key mismatch")
    func legacy31WrongKey() throws {
        let codec = LANMessageCodec(version: .v3_1)
        let bytes = try codec.encode(LANMessage(command: .control, sequence: 1, payload: json), key: key)
        let error = wireError { () throws(WireError) in
            try codec.decode(bytes, key: aesKey(otherLANKey), direction: .toDevice)
        }
        #expect(error == .keyMismatch("the 3.1 payload's MD5 signature does not match the local key"))
    }

    @Test("a 3.3 frame with an intact CRC but another key is reported as a key mismatch")
    func wrongKey33() throws {
        let codec = LANMessageCodec(version: .v3_3)
        var mismatches = 0
        for sequence in UInt32(0)..<200 {
            let bytes = try codec.encode(
                LANMessage(command: .status, sequence: sequence, retcode: 0, payload: json), key: key)
            let error = wireError { () throws(WireError) in
                try codec.decode(bytes, key: aesKey(otherLANKey), direction: .fromDevice)
            }
            if case .keyMismatch? = error { mismatches += 1 }
        }
        #expect(mismatches == 200)
    }

    @Test("3.4 and 3.5 frames under another key fail authentication")
    func wrongKeySealed() throws {
        for version in [LANProtocolVersion.v3_4, .v3_5] {
            let codec = LANMessageCodec(version: version)
            let bytes = try codec.encode(
                LANMessage(command: .status, sequence: 1, retcode: 0, payload: json), key: key, nonce: nonce)
            let error = wireError { () throws(WireError) in
                try codec.decode(bytes, key: aesKey(otherLANKey), direction: .fromDevice)
            }
            guard case .authenticationFailed? = error else {
                Issue.record("\(version): expected authenticationFailed, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("a 3.3 device's plaintext error text decodes as text, not as a key mismatch")
    func errorText() throws {
        let codec = LANMessageCodec(version: .v3_3)
        let bytes = try codec.encode(
            LANMessage(command: .dpQuery, sequence: 1, retcode: 1, payload: LANDeviceReply.invalidRequest), key: key)
        let decoded = try codec.decode(bytes, key: key, direction: .fromDevice)
        #expect(decoded.retcode == 1)
        #expect(LANDataPoints.asksForDevice22Query(decoded.payload))
    }

    @Test("3.5 refuses to encode without a nonce")
    func nonceRequired() {
        let error = wireError { () throws(WireError) in
            try LANMessageCodec(version: .v3_5).encode(
                LANMessage(command: .status, sequence: 1, payload: json), key: key)
        }
        #expect(error == .invalidKey("a 3.5 frame needs a 12-byte nonce"))
    }

    @Test("version and command names parse the way users and tinytuya write them")
    func parsing() {
        #expect(LANProtocolVersion("3.3") == .v3_3)
        #expect(LANProtocolVersion("v3.4") == .v3_4)
        #expect(LANProtocolVersion("3.50") == .v3_5)
        #expect(LANProtocolVersion("3.6") == nil)
        #expect(LANProtocolVersion("33") == nil)
        #expect(LANCommand("CONTROL_NEW") == .controlNew)
        #expect(LANCommand("dp_query") == .dpQuery)
        #expect(LANCommand("0x10") == .dpQueryNew)
        #expect(LANCommand("8") == .status)
        #expect(LANCommand("nonsense") == nil)
        #expect(LANCommand(rawValue: 0x99).description == "command 153")
        #expect(LANProtocolVersion.v3_3.controlCommand == .control)
        #expect(LANProtocolVersion.v3_4.controlCommand == .controlNew)
        #expect(LANProtocolVersion.v3_5.queryCommand == .dpQueryNew)
    }
}
