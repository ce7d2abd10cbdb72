import Testing
import TuyaWire
import DeviceSimulator
import YoullTestSupport

/// Whole-path round trips: command frame → security layer → packets → reassembly →
/// decryption, as the gateway and a device would run them (TUYA.md §1.3–§1.9).
@Suite("BLE end-to-end round trips")
struct BLERoundTripTests {
    struct Link {
        var keys: BLEKeys
        var ivSource = RandomIVSource(generator: SeededGenerator(seed: 42))
        var fragmenter = BLEFragmenter(protocolVersion: 4)
        var reassembler = BLEReassembler()

        mutating func transmit(_ frame: BLECommandFrame, flag: BLESecurityFlag) throws -> (
            BLESecurityFlag, BLECommandFrame
        ) {
            let encrypted = try BLEFrameCodec.encrypt(frame, flag: flag, keys: keys, ivSource: &ivSource)
            var whole: [UInt8]?
            for packet in try fragmenter.packets(for: encrypted) {
                #expect(packet.count <= BLEFragmenter.defaultMTU)
                #expect(whole == nil)
                whole = try reassembler.receive(packet)
            }
            #expect(reassembler.protocolVersion == 4)
            let decoded = try BLEFrameCodec.decrypt(try #require(whole), keys: keys)
            return (decoded.flag, decoded.frame)
        }
    }

    @Test("device info, pairing, v3 and v4 writes and a report with its ack survive the whole path")
    func connectionSequence() throws {
        var gateway = Link(keys: try BLEKeys(localKey: BLEVectors.localKey))

        // 1. Device info with the login key (flag 4), answered with the srand.
        let request = try BLECommandFrame(sn: 1, command: .deviceInfo, data: BLEDeviceInfoRequest().encoded)
        let (flag, received) = try gateway.transmit(request, flag: gateway.keys.loginFlag)
        #expect(flag == .login && received == request)
        let info = BLEDeviceInfo(
            firmwareVersion: .init(major: 1, minor: 0), protocolVersion: .init(major: 4, minor: 1), isBound: false,
            srand: BLEVectors.srand)
        let infoReply = try received.reply(sn: 1, data: try info.encoded())
        let (_, infoBack) = try gateway.transmit(infoReply, flag: .login)
        let parsed = try BLEDeviceInfo(bytes: infoBack.data)
        try gateway.keys.establishSession(srand: parsed.srand)

        // 2. Pair with the session key (flag 5).
        let pair = try BLEPairRequest(
            uuid: "tuya1234abcd5678", localKey: BLEVectors.localKey, devId: "bf1234567890abcdefghij")
        let pairFrame = try BLECommandFrame(sn: 2, command: .pair, data: pair.encoded)
        let (pairFlag, pairBack) = try gateway.transmit(pairFrame, flag: gateway.keys.sessionFlag)
        #expect(pairFlag == .session)
        #expect(try BLEPairRequest(bytes: pairBack.data) == pair)

        // 3. A v3 write and a v4 write.
        let v3 = try BLEDataPointList(
            format: .v3, dataPoints: [.bool(bleDP(105), true), try .string(bleDP(24), "000003e803e8")])
        let v3Back = try gateway.transmit(
            try BLECommandFrame(sn: 3, command: .dpWriteV3, data: v3.encoded), flag: .session
        ).1
        #expect(try BLEDataPointList(bytes: v3Back.data, format: .v3) == v3)
        let v4 = BLEDataPointWriteV4(
            sn: 4, dataPoints: [.value(bleDP(106), 60), try .enumeration(bleDP(103), index: 2)])
        let v4Back = try gateway.transmit(
            try BLECommandFrame(sn: 4, command: .dpWriteV4, data: v4.encoded()), flag: .session
        ).1
        #expect(try BLEDataPointWriteV4(bytes: v4Back.data) == v4)

        // 4. A device report and the gateway's ack.
        let report = BLEDataPointReportV4(sn: 0x0102_0304, dataPoints: [.value(bleDP(11), 87)])
        let reportFrame = try BLECommandFrame(sn: 17, command: report.command, data: report.encoded())
        let reportBack = try gateway.transmit(reportFrame, flag: .session).1
        let decodedReport = try BLEDataPointReportV4(bytes: reportBack.data, command: reportBack.command)
        #expect(decodedReport == report)
        let ack = try reportBack.reply(sn: 5, data: decodedReport.ack())
        let ackBack = try gateway.transmit(ack, flag: .session).1
        #expect(ackBack.ackSN == 17 && ackBack.command == .dpReportV4)
        #expect(ackBack.data == hexBytes("00 01020304 00 00 00"))
    }

    @Test("sec_key connections use flags 14 and 15 end to end")
    func secKeyPath() throws {
        var link = Link(keys: try BLEVectors.sessionKeys(secKey: BLEVectors.secKey))
        let frame = try BLECommandFrame(sn: 1, command: .query)
        #expect(try link.transmit(frame, flag: link.keys.loginFlag) == (.secKeyLogin, frame))
        #expect(try link.transmit(frame, flag: link.keys.sessionFlag) == (.secKeySession, frame))
    }
}
