import BLELink
import Testing
import DeviceSimulator
import YoullTestSupport

@Suite("HCI LE advertising reports")
struct HCIEventParserTests {
    static let flags = adStructure(0x01, [0x06])

    @Test("an ADV_IND report gives event type, address in display order, data and a negative RSSI")
    func advInd() throws {
        // 04 3E 0F | 02 01 | 00 00 | 66 55 44 33 22 11 | 03 02 01 06 | C4 (-60 dBm)
        let packet = hexBytes("04 3E 0F 02 01 00 00 665544332211 03 020106 C4")
        let event = try HCIEventParser.parse(packet)
        #expect(
            event
                == .advertisingReports([
                    AdvertisingReport(
                        eventType: .advInd, addressType: .publicDevice, address: "11:22:33:44:55:66",
                        data: AdvertisingData(bytes: Self.flags), rssi: -60)
                ]))
    }

    @Test("several reports in one event are each read whole, a scan response among them")
    func severalReports() throws {
        let packet = advertisingReportPacket([
            (0x00, "AA:BB:CC:DD:EE:01", Self.flags, -40),
            (0x04, "AA:BB:CC:DD:EE:02", adStructure(0x09, Array("TY".utf8)), -90),
            (0x03, "AA:BB:CC:DD:EE:03", [], 127),
        ])
        guard case .advertisingReports(let reports) = try HCIEventParser.parse(packet) else {
            Issue.record("not reports")
            return
        }
        #expect(reports.map(\.eventType) == [.advInd, .scanResponse, .advNonconnInd])
        #expect(reports.map(\.address) == ["AA:BB:CC:DD:EE:01", "AA:BB:CC:DD:EE:02", "AA:BB:CC:DD:EE:03"])
        #expect(reports.map(\.rssi) == [-40, -90, nil])
        #expect(reports[1].data.localName == "TY")
        #expect(reports[0].eventType.isConnectable && !reports[1].eventType.isConnectable)
    }

    @Test("a random address type is kept")
    func randomAddress() throws {
        let packet = hexBytes("04 3E 0C 02 01 02 01 010203040506 00 7F")
        guard case .advertisingReports(let reports) = try HCIEventParser.parse(packet) else { return }
        #expect(reports.first?.addressType == .randomDevice)
        #expect(reports.first?.eventType == .advScanInd)
        #expect(reports.first?.address == "06:05:04:03:02:01")
    }

    @Test("an extended report of a legacy ADV_IND is read like a legacy one; incomplete data is flagged")
    func extendedReport() throws {
        var parameters: [UInt8] = [0x0D, 0x01, 0x13, 0x00, 0x01] + hexBytes("665544332211")
        parameters += [0x01, 0x00, 0xFF, 0x7F, 0xB0] + [0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
        parameters += [UInt8(Self.flags.count)] + Self.flags
        let packet = [0x04, 0x3E, UInt8(parameters.count)] + parameters
        guard case .advertisingReports(let reports) = try HCIEventParser.parse(packet) else {
            Issue.record("not reports")
            return
        }
        #expect(reports.first?.eventType == .advInd)
        #expect(reports.first?.rssi == -80)
        #expect(reports.first?.address == "11:22:33:44:55:66")
        #expect(reports.first?.data.flags == 0x06)
        #expect(reports.first?.isDataComplete == true)

        var incomplete = packet
        incomplete[5] = 0x20 | 0x01  // connectable extended advert, data status "more to come"
        guard case .advertisingReports(let more) = try HCIEventParser.parse(incomplete) else { return }
        #expect(more.first?.eventType == .extended(properties: 0x01))
        #expect(more.first?.isDataComplete == false)
        #expect(more.first?.eventType.isConnectable == true)
    }

    @Test("other events and LE subevents are read and deliberately ignored")
    func ignored() throws {
        #expect(try HCIEventParser.parse(hexBytes("04 0E 04 01 0B 20 00")) == .ignored(eventCode: 0x0E, subevent: nil))
        #expect(
            try HCIEventParser.parse(hexBytes("04 3E 02 01 00")) == .ignored(eventCode: 0x3E, subevent: 0x01))
    }

    @Test(
        "broken packets throw an error that names the field",
        arguments: [
            ("", "not an HCI event packet (packet type missing)"),
            ("02 3E 00", "not an HCI event packet (packet type 0x2)"),
            ("04", "truncated LE advertising report: event code needs 1 bytes, 0 left"),
            ("04 3E 05 02 01", "HCI event parameter length 5 but 2 bytes follow"),
            ("04 3E 02 02 00", "invalid number of reports 0 in LE advertising report"),
            ("04 3E 03 02 01 00", "truncated LE advertising report: address type needs 1 bytes, 0 left"),
            ("04 3E 0C 02 01 07 00 010203040506 00 C4", "invalid event type 7 in LE advertising report"),
            ("04 3E 0C 02 01 00 09 010203040506 00 C4", "invalid address type 9 in LE advertising report"),
            (
                "04 3E 0B 02 01 00 00 010203040506 03",
                "truncated LE advertising report: advertising data needs 3 bytes, 0 left"
            ),
            ("04 3E 0C 02 01 00 00 010203040506 20 C4", "invalid data length 32 in LE advertising report"),
            ("04 3E 0B 02 01 00 00 010203040506 00", "truncated LE advertising report: RSSI needs 1 bytes, 0 left"),
            ("04 3E 0D 02 01 00 00 010203040506 00 C4 00", "1 bytes left after the last advertising report"),
            (
                "04 3E 0D 02 02 00 00 010203040506 00 C4 00",
                "truncated LE advertising report: address type needs 1 bytes, 0 left"
            ),
        ])
    func broken(hex: String, message: String) {
        do {
            let event = try HCIEventParser.parse(hexBytes(hex))
            Issue.record("parsed \(event)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("twenty thousand random and mutated packets never trap the parser")
    func fuzz() {
        var generator = SeededGenerator(seed: 0x4C45)
        let seeds = [
            advertisingReportPacket([(0x00, "AA:BB:CC:DD:EE:01", AdvertisingDataTests.tuyaAdvert, -40)]),
            advertisingReportPacket([
                (0x04, "AA:BB:CC:DD:EE:02", adStructure(0xFF, [0xD0, 0x07, 0x80, 0x03]), -70),
                (0x00, "AA:BB:CC:DD:EE:03", Self.flags, -50),
            ]),
        ]
        var parsed = 0
        for round in 0..<20_000 {
            var packet = generator.mutate(seeds[round % seeds.count])
            // Keep the length byte honest half the time, so mutations reach the reports.
            if round % 2 == 0, packet.count >= 3 { packet[2] = UInt8(truncatingIfNeeded: packet.count - 3) }
            if case .advertisingReports(let reports) = try? HCIEventParser.parse(packet) {
                parsed += 1
                for report in reports { #expect(report.address.count == 17) }
            }
        }
        #expect(parsed > 100)
    }

    @Test("addresses convert between wire order and text, and malformed text is refused")
    func addresses() {
        #expect(
            AdvertisingReport.addressText(littleEndian: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11]) == "11:22:33:44:55:66")
        #expect(AdvertisingReport.addressBytes("11:22:33:44:55:6f") == [0x6F, 0x55, 0x44, 0x33, 0x22, 0x11])
        for bad in [
            "", "11:22:33:44:55", "11:22:33:44:55:66:77", "11:22:33:44:55:6", "11:22:33:44:55:GG", "+1:22:33:44:55:66",
        ] {
            #expect(AdvertisingReport.addressBytes(bad) == nil, "\(bad)")
        }
    }
}
