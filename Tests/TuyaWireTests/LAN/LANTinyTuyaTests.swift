import DeviceSimulator
import YoullTestSupport
import Foundation
import Testing
import TuyaCore
import TuyaWire

/// Real parts: tinytuya 1.20.0 in a python3 child process (Tests/Python/tinytuya_codec.py),
/// the implementation no one here wrote. Frames go both ways for every version.
@Suite("LAN codec against tinytuya")
struct LANTinyTuyaTests {
    let key = aesKey(lanKey)
    /// A stand-in session key for data frames of 3.4/3.5.
    let sessionKey = aesKey("SessionKey-16byt")
    let json = ascii(
        #"{"devId":"bf0123456789abcdef01","dps":{"1":true,"22":500},"t":"1700000000","uid":"bf0123456789abcdef01"}"#)

    private func dataKey(_ version: LANProtocolVersion) -> AESKey {
        version.negotiatesSessionKey ? sessionKey : key
    }

    /// What tinytuya's `_decode_payload` makes of a frame's payload, after its own unpack.
    private func tinytuyaReads(
        _ peer: TinyTuyaPeer, _ frame: [UInt8], version: LANProtocolVersion, fromDevice: Bool
    ) throws -> [String: Any] {
        var unpack: [String: Any] = ["op": "unpack", "hex": hexString(frame), "no_retcode": !fromDevice]
        if version.negotiatesSessionKey { unpack["key_hex"] = hexString(dataKey(version).bytes) }
        let unpacked = try peer.call(unpack)
        #expect(unpacked["crc_good"] as? Bool == true, "\(version): tinytuya's integrity check")
        let decoded = try peer.call([
            "op": "decode_payload", "version": version.rawValue, "local_key": lanKey,
            "key_hex": hexString(dataKey(version).bytes), "payload_hex": unpacked["payload_hex"] as? String ?? "",
        ])
        return try #require(decoded["result"] as? [String: Any], "\(version): \(decoded)")
    }

    @Test("tinytuya reads the CONTROL frames our codec writes, for 3.1, 3.3, 3.4 and 3.5")
    func tinytuyaReadsOurRequests() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        for version in [LANProtocolVersion.v3_1, .v3_3, .v3_4, .v3_5] {
            let frame = try LANMessageCodec(version: version).encode(
                LANMessage(command: version.controlCommand, sequence: 12, payload: json), key: dataKey(version),
                nonce: [UInt8](repeating: 0x21, count: 12))
            let result = try tinytuyaReads(peer, frame, version: version, fromDevice: false)
            let dps = try #require(result["dps"] as? [String: Any], "\(version): \(result)")
            #expect(dps["1"] as? Bool == true, "\(version)")
            #expect(dps["22"] as? Int == 500, "\(version)")
        }
    }

    @Test("our codec reads the frames tinytuya's client writes, for 3.1, 3.3, 3.4 and 3.5")
    func weReadTinytuyaRequests() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        for version in [LANProtocolVersion.v3_1, .v3_3, .v3_4, .v3_5] {
            let answer = try peer.call([
                "op": "client_encode", "version": version.rawValue, "local_key": lanKey,
                "key_hex": hexString(dataKey(version).bytes), "seq": 77, "cmd": Int(version.controlCommand.rawValue),
                "payload_hex": hexString(json),
            ])
            let message = try LANMessageCodec(version: version).decode(
                peer.bytes(answer, "hex"), key: dataKey(version), direction: .toDevice)
            #expect(message.command == version.controlCommand, "\(version)")
            #expect(message.sequence == 77)
            #expect(message.payload == json, "\(version)")
            if version != .v3_1 { #expect(message.header == LANVersionHeader(version: version)) }
        }
    }

    /// The layout of a device's STATUS push per TUYA.md §2.2–2.3, as parts for tinytuya's
    /// pack_message: clear retcode (55AA), clear header + ECB (3.3), ECB over header +
    /// JSON (3.4), GCM over header + JSON with the retcode first (3.5).
    private func devicePush(_ version: LANProtocolVersion, header: LANVersionHeader) -> [String: Any] {
        let keyHex = hexString(dataKey(version).bytes)
        var request: [String: Any] = ["op": "device_pack", "seq": 5, "cmd": 8]
        switch version {
        case .v3_1:
            request["parts"] = [["raw_hex": "00000000"], ["raw_hex": hexString(json)]]
        case .v3_2, .v3_3:
            request["parts"] = [
                ["raw_hex": "00000000"], ["raw_hex": hexString(header.encoded)],
                ["ecb_hex": hexString(json), "key_hex": keyHex],
            ]
        case .v3_4:
            request["parts"] = [
                ["raw_hex": "00000000"], ["ecb_hex": hexString(header.encoded + json), "key_hex": keyHex],
            ]
            request["key_hex"] = keyHex
        case .v3_5:
            request["parts"] = [["raw_hex": hexString(header.encoded + json)]]
            request["gcm"] = true
            request["retcode"] = 0
            request["key_hex"] = keyHex
        }
        return request
    }

    @Test("our codec reads device pushes packed by tinytuya's pack_message and AESCipher, source header included")
    func weReadTinytuyaPackedPushes() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        for version in [LANProtocolVersion.v3_1, .v3_3, .v3_4, .v3_5] {
            let header = LANVersionHeader(version: version, crc: 0, sequence: 0xBFF9, source: 1)
            let frame = try peer.bytes(try peer.call(devicePush(version, header: header)), "hex")
            let message = try LANMessageCodec(version: version).decode(
                frame, key: dataKey(version), direction: .fromDevice)
            #expect(message.command == .status)
            #expect(message.retcode == 0, "\(version)")
            #expect(message.payload == json, "\(version)")
            if version != .v3_1 { #expect(message.header == header, "\(version)") }
        }
    }

    @Test("tinytuya reads the STATUS pushes and empty acks our device session writes")
    func tinytuyaReadsOurPushes() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        for version in [LANProtocolVersion.v3_1, .v3_3, .v3_4, .v3_5] {
            let codec = LANMessageCodec(version: version)
            let push = LANMessage(
                command: .status, sequence: 900, retcode: 0,
                payload: LANDeviceReply.status(version: version, devId: "bf01", dps: ["20": .bool(true)], timestamp: 1),
                header: LANVersionHeader(version: version, sequence: 900, source: 1))
            let frame = try codec.encode(push, key: dataKey(version), nonce: [UInt8](repeating: 3, count: 12))
            let result = try tinytuyaReads(peer, frame, version: version, fromDevice: true)
            let dps = try #require(result["dps"] as? [String: Any], "\(version): \(result)")
            #expect(dps["20"] as? Bool == true, "\(version)")

            let ack = try codec.encode(
                LANMessage(command: version.controlCommand, sequence: 901, retcode: 0, payload: []),
                key: dataKey(version), nonce: [UInt8](repeating: 4, count: 12))
            var unpack: [String: Any] = ["op": "unpack", "hex": hexString(ack)]
            if version.negotiatesSessionKey { unpack["key_hex"] = hexString(dataKey(version).bytes) }
            let unpacked = try peer.call(unpack)
            #expect(unpacked["payload_hex"] as? String == "", "\(version): tinytuya sees a null ack")
            #expect(unpacked["retcode"] as? Int == 0)
        }
    }

    @Test("tinytuya's client completes the 3.4 and 3.5 handshake with our device session and both hold one key")
    func tinytuyaClientOurDevice() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        for version in [LANProtocolVersion.v3_4, .v3_5] {
            var device = LANDeviceSession(
                version: version, localKey: key, random: SeededGenerator(seed: 99), firstSequence: 1000)
            let start = try peer.call([
                "op": "handshake_start", "name": version.rawValue, "version": version.rawValue, "local_key": lanKey,
                "seq": 1,
            ])
            let answer = try #require(device.receive(try peer.bytes(start, "hex")).compactMap(\.sentBytes).first)
            let finish = try peer.call(["op": "handshake_finish", "name": version.rawValue, "hex": hexString(answer)])
            #expect(finish["ok"] as? Bool == true, "\(version): tinytuya accepts our SESS_KEY_NEG_RESP")
            #expect(device.receive(try peer.bytes(finish, "hex")) == [.established], "\(version)")
            let agreed = try peer.bytes(finish, "session_key_hex")
            #expect(device.sessionKey?.bytes == agreed, "\(version)")

            // tinytuya's CONTROL_NEW under the session key reaches our device.
            let control = try peer.call([
                "op": "client_encode", "version": version.rawValue, "local_key": lanKey, "key_hex": hexString(agreed),
                "seq": 3, "cmd": 13, "payload": #"{"protocol":5,"t":1,"data":{"dps":{"20":false}}}"#,
            ])
            let requests = device.receive(try peer.bytes(control, "hex")).compactMap(\.request)
            #expect(try LANDataPoints.dps(in: requests.first?.payload ?? []) == ["20": .bool(false)], "\(version)")
        }
    }

    @Test("a tinytuya client with another local key refuses our device's handshake answer")
    func tinytuyaClientWrongKey() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        for version in [LANProtocolVersion.v3_4, .v3_5] {
            var device = LANDeviceSession(version: version, localKey: aesKey(otherLANKey))
            let start = try peer.call([
                "op": "handshake_start", "name": "wrong" + version.rawValue, "version": version.rawValue,
                "local_key": lanKey, "seq": 1,
            ])
            let answer = try #require(device.receive(try peer.bytes(start, "hex")).compactMap(\.sentBytes).first)
            let finish = try peer.call([
                "op": "handshake_finish", "name": "wrong" + version.rawValue, "hex": hexString(answer),
            ])
            #expect(finish["ok"] as? Bool == false, "\(version)")
        }
    }

    @Test("our client completes the 3.4 and 3.5 handshake against device frames packed by tinytuya")
    func ourClientTinytuyaDevice() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        let keyHex = hexString(key.bytes)
        for version in [LANProtocolVersion.v3_4, .v3_5] {
            var client = LANClientSession(version: version, localKey: key, random: SeededGenerator(seed: 21))
            let start = client.start()
            let unpacked = try peer.call([
                "op": "unpack", "hex": hexString(start), "key_hex": keyHex, "no_retcode": true,
            ])
            #expect(unpacked["crc_good"] as? Bool == true)
            var clientNonce = try peer.bytes(unpacked, "payload_hex")
            if version == .v3_4 {
                clientNonce = try peer.bytes(
                    try peer.call(["op": "ecb_decrypt", "key_hex": keyHex, "hex": hexString(clientNonce)]), "hex")
            }
            #expect(clientNonce.count == 16)

            // SESS_KEY_NEG_RESP: Nd ‖ HMAC-SHA256(localKey, Nc) (TUYA.md §2.4), sealed by tinytuya.
            let deviceNonce = [UInt8](repeating: 0x6D, count: 16)
            let signature = try peer.bytes(
                try peer.call(["op": "hmac_sha256", "key_hex": keyHex, "data_hex": hexString(clientNonce)]), "hex")
            var respond: [String: Any] = ["op": "device_pack", "seq": 1, "cmd": 4, "key_hex": keyHex]
            if version == .v3_4 {
                respond["parts"] = [
                    ["raw_hex": "00000000"], ["ecb_hex": hexString(deviceNonce + signature), "key_hex": keyHex],
                ]
            } else {
                respond["parts"] = [["raw_hex": hexString(deviceNonce + signature)]]
                respond["gcm"] = true
                respond["retcode"] = 0
            }
            let events = client.receive(try peer.bytes(try peer.call(respond), "hex"))
            #expect(events.last == .established, "\(version): \(events)")

            let expectedKey = try peer.bytes(
                try peer.call([
                    "op": "session_key", "version": version.rawValue, "local_key": lanKey,
                    "client_nonce_hex": hexString(clientNonce), "device_nonce_hex": hexString(deviceNonce),
                ]), "hex")
            #expect(client.sessionKey?.bytes == expectedKey, "\(version): tinytuya derives the same session key")

            // Our FINISH carries HMAC-SHA256(localKey, Nd), sealed with the real key.
            let finish = try #require(events.first?.sentBytes)
            var finishPayload = try peer.bytes(
                try peer.call(["op": "unpack", "hex": hexString(finish), "key_hex": keyHex, "no_retcode": true]),
                "payload_hex")
            if version == .v3_4 {
                finishPayload = try peer.bytes(
                    try peer.call(["op": "ecb_decrypt", "key_hex": keyHex, "hex": hexString(finishPayload)]), "hex")
            }
            let expectedFinish = try peer.bytes(
                try peer.call(["op": "hmac_sha256", "key_hex": keyHex, "data_hex": hexString(deviceNonce)]), "hex")
            #expect(finishPayload == expectedFinish, "\(version)")
        }
    }

    @Test("our broadcasts decode with tinytuya's decrypt_udp in all three forms")
    func tinytuyaReadsOurBroadcasts() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        let broadcast = LANBroadcast(
            gwId: "bf0123456789abcdef01", ip: "127.0.9.1", version: "3.4", productKey: "keydeadbeef12345",
            encrypt: true, active: 2, ability: 0, token: true, wifiConfigured: true)
        for format in [LANDiscovery.Format.plaintext, .ecb, .gcm] {
            let datagram = try LANDiscovery.encode(broadcast, format: format, nonce: [UInt8](repeating: 2, count: 12))
            let answer = try peer.call(["op": "udp_decrypt", "hex": hexString(datagram)])
            let text = try #require(answer["json"] as? String)
            #expect(try LANBroadcast(json: ascii(text)) == broadcast, "\(format)")
        }
    }

    @Test("our discovery decodes broadcasts and the solicitation made by tinytuya's code")
    func weReadTinytuyaBroadcasts() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        let json =
            #"{"ip":"127.0.0.1","gwId":"eb0123456789abcdefghij","active":2,"ablilty":0,"encrypt":true,"productKey":"keydeadbeef12345","version":"3.5","token":true,"wf_cfg":true}"#
        let expected = try LANBroadcast(json: ascii(json))
        let gcm = try peer.call([
            "op": "device_pack", "seq": 1, "cmd": 0x13, "retcode": 0, "gcm": true, "key_hex": "udp",
            "parts": [["raw_hex": hexString(ascii(json))]],
        ])
        #expect(try LANDiscovery.decode(peer.bytes(gcm, "hex")) == .announcement(expected, .gcm))
        let ecb = try peer.call([
            "op": "device_pack", "seq": 1, "cmd": 0x13,
            "parts": [["raw_hex": "00000000"], ["ecb_hex": hexString(ascii(json)), "key_hex": "udp"]],
        ])
        #expect(try LANDiscovery.decode(peer.bytes(ecb, "hex")) == .announcement(expected, .ecb))
        let plain = try peer.call([
            "op": "device_pack", "seq": 1, "cmd": 0,
            "parts": [["raw_hex": "00000000"], ["raw_hex": hexString(ascii(json))]],
        ])
        #expect(try LANDiscovery.decode(peer.bytes(plain, "hex")) == .announcement(expected, .plaintext))
        let solicitation = try peer.call(["op": "solicitation", "ip": "127.0.0.1"])
        #expect(
            try LANDiscovery.decode(peer.bytes(solicitation, "hex")) == .solicitation(LANSolicitation(ip: "127.0.0.1")))
        // tinytuya reads our solicitation too.
        let ours = try LANSolicitation(ip: "10.1.2.3").encode(nonce: [UInt8](repeating: 5, count: 12))
        let read = try peer.call(["op": "udp_decrypt", "hex": hexString(ours)])
        #expect(
            (read["json"] as? String).map { ascii($0) }.flatMap { try? LANSolicitation(json: $0) }
                == LANSolicitation(ip: "10.1.2.3"))
    }

    @Test("our request bodies carry what tinytuya's generate_payload sends, per version")
    func requestBodies() async throws {
        let peer = try TinyTuyaPeer(python: try await PythonTools.python())
        let devId = "bf0123456789abcdef01"
        for version in [LANProtocolVersion.v3_1, .v3_3, .v3_4, .v3_5] {
            let cases: [(String, [String: Any]?, LANRequest)] = [
                (
                    "CONTROL", ["1": true],
                    LANRequest.control(version: version, devId: devId, dps: ["1": .bool(true)], timestamp: 0)
                ),
                ("DP_QUERY", nil, LANRequest.query(version: version, devId: devId, timestamp: 0)),
                ("HEART_BEAT", nil, LANRequest.heartbeat(devId: devId)),
            ]
            for (command, data, ours) in cases {
                var request: [String: Any] = [
                    "op": "generate_payload", "version": version.rawValue, "local_key": lanKey, "command": command,
                    "dev_id": devId,
                ]
                if let data { request["data"] = data }
                let theirs = try peer.call(request)
                #expect(theirs["cmd"] as? Int == Int(ours.command.rawValue), "\(version) \(command)")
                let theirBody = try CompactJSON.decode(ascii(try #require(theirs["payload"] as? String)))
                #expect(
                    withoutTime(theirBody) == withoutTime(try CompactJSON.decode(ours.json)), "\(version) \(command)")
            }
        }
    }

    /// A body with its timestamp set to one value, keeping whether it was a string or a number.
    private func withoutTime(_ value: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        switch members["t"] {
        case .string: members["t"] = .string("T")
        case .integer: members["t"] = .integer(0)
        default: break
        }
        return .object(members)
    }
}
