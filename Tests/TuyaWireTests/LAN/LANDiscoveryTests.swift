import DeviceSimulator
import YoullTestSupport
import Testing
import TuyaCore
import TuyaWire

@Suite("LAN discovery broadcasts and the 3.5 solicitation")
struct LANDiscoveryTests {
    let broadcast = LANBroadcast(
        gwId: "bf0123456789abcdef01", ip: "127.0.4.7", version: "3.3", productKey: "keydeadbeef12345", encrypt: true,
        active: 2, ability: 0, token: true, wifiConfigured: true)

    @Test("the broadcast key is MD5 of \"yGAdlopoPVldABfn\" (TUYA.md §2.1)")
    func broadcastKey() {
        #expect(LANDiscovery.broadcastKey.bytes == MD5Digest.hash(ascii("yGAdlopoPVldABfn")))
        #expect(hexString(LANDiscovery.broadcastKey.bytes) == "6c1ec8e2bb9bb59ab50b0daf649b410a")
    }

    @Test("announcements round-trip in the plaintext, ECB and GCM forms, on the ports each form uses")
    func roundTrip() throws {
        let nonce = [UInt8](repeating: 4, count: 12)
        for format in [LANDiscovery.Format.plaintext, .ecb, .gcm] {
            let datagram = try LANDiscovery.encode(broadcast, format: format, sequence: 3, nonce: nonce)
            #expect(try LANDiscovery.decode(datagram) == .announcement(broadcast, format))
        }
        #expect(LANDiscovery.Format(version: .v3_1).port == 6666)
        #expect(LANDiscovery.Format(version: .v3_4) == .ecb)
        #expect(LANDiscovery.Format(version: .v3_5).port == 6667)
    }

    @Test("the 6667 ECB announcement is a 55AA frame of cmd 0x13 with a retcode, AES-ECB under the broadcast key")
    func ecbLayout() throws {
        let datagram = try LANDiscovery.encode(broadcast, format: .ecb)
        let frame = try LAN55AAFrame.decode(datagram, direction: .fromDevice, integrity: .crc32)
        #expect(frame.command == .udpNew)
        #expect(frame.retcode == 0)
        #expect(try PKCS7.unpad(AESCipher.decryptECB(frame.payload, key: LANDiscovery.broadcastKey)) == broadcast.json)
    }

    @Test("a broadcast that spells ability as \"ablilty\" is read the same")
    func misspelledAbility() throws {
        let json = ascii(
            #"{"ip":"10.0.0.9","gwId":"eb0123456789abcdefghij","active":2,"ablilty":5,"encrypt":true,"productKey":"p","version":"3.5","token":true,"wf_cfg":true}"#
        )
        let read = try LANBroadcast(json: json)
        #expect(read.ability == 5)
        #expect(read.gwId == "eb0123456789abcdefghij")
        #expect(read.protocolVersion == .v3_5)
    }

    @Test("announcements missing gwId, ip or version, or with wrong types, name the field")
    func requiredFields() {
        let cases: [(String, WireError)] = [
            (#"{"ip":"1.2.3.4","version":"3.3"}"#, .missingField("gwId")),
            (#"{"gwId":"a","version":"3.3"}"#, .missingField("ip")),
            (#"{"gwId":"a","ip":"1.2.3.4"}"#, .missingField("version")),
            (
                #"{"gwId":"a","ip":"1.2.3.4","version":"3.3","encrypt":"yes"}"#,
                .invalidField(field: "encrypt", reason: "has the wrong type")
            ),
            (#"[1]"#, .malformedJSON("the discovery broadcast is not a JSON object")),
        ]
        for (json, expected) in cases {
            #expect(wireError { () throws(WireError) in try LANBroadcast(json: ascii(json)) } == expected, "\(json)")
        }
    }

    @Test("the solicitation is a 6699 REQ_DEVINFO frame under the broadcast key without a retcode")
    func solicitation() throws {
        let solicitation = LANSolicitation(ip: "127.0.0.1")
        let datagram = try solicitation.encode(nonce: [UInt8](repeating: 8, count: 12))
        let frame = try LAN6699Frame.decode(datagram, direction: .toDevice, key: LANDiscovery.broadcastKey)
        #expect(frame.command == .requestDeviceInfo)
        #expect(frame.payload == ascii(#"{"from":"app","ip":"127.0.0.1"}"#))
        #expect(try LANDiscovery.decode(datagram) == .solicitation(solicitation))
        #expect(
            wireError { () throws(WireError) in try LANSolicitation(json: ascii(#"{"from":"dev","ip":"1"}"#)) }
                == .invalidField(field: "from", reason: "a solicitation says \"from\":\"app\""))
    }

    @Test("hostile datagrams are refused with a typed error, never a trap")
    func hostile() throws {
        var generator = SeededGenerator(seed: 6667)
        let good = try LANDiscovery.encode(broadcast, format: .ecb)
        let inputs: [[UInt8]] = [
            [], [0x00, 0x00, 0x66, 0x99], Array(good.prefix(30)), [UInt8](repeating: 0, count: 16),
            [UInt8](repeating: 0x41, count: LANDiscovery.maxDatagramSize + 1),
            try LAN6699Frame.encode(
                sequence: 1, command: .udpNew, retcode: 0, payload: broadcast.json, key: aesKey(lanKey),
                nonce: [UInt8](repeating: 1, count: 12)),
        ]
        for input in inputs {
            #expect(wireError { () throws(WireError) in try LANDiscovery.decode(input) } != nil)
        }
        for _ in 0..<2_000 {
            let input = (0..<Int.random(in: 0..<120, using: &generator)).map { _ in
                UInt8.random(in: .min ... .max, using: &generator)
            }
            #expect(wireError { () throws(WireError) in try LANDiscovery.decode(input) } != nil)
        }
    }
}
