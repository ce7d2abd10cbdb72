import BLELink
import Foundation
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@Suite("Scan results: deduplication and merging")
struct ScanTableTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let name = adStructure(0x09, Array("TY".utf8))

    @Test("an advert and its scan response merge into one device with the latest RSSI and time")
    func mergeAndDedupe() {
        var table = ScanTable()
        let first = table.receive(
            packet: advertisingReportPacket([(0x00, "AA:BB:CC:00:00:01", adStructure(0x01, [0x06]), -70)]), at: Self.t0)
        guard case .seen(let device, isNew: true) = first.first else {
            Issue.record("first sighting not new: \(first)")
            return
        }
        #expect(device.isConnectable)
        #expect(device.scanResponse == nil)

        let second = table.receive(
            packet: advertisingReportPacket([(0x04, "AA:BB:CC:00:00:01", Self.name, -55)]),
            at: Self.t0.addingTimeInterval(1))
        guard case .seen(let merged, isNew: false) = second.first else {
            Issue.record("scan response made a second device: \(second)")
            return
        }
        #expect(table.devices.count == 1)
        #expect(merged.rssi == -55)
        #expect(merged.firstSeen == Self.t0)
        #expect(merged.lastSeen == Self.t0.addingTimeInterval(1))
        #expect(merged.data.flags == 0x06)
        #expect(merged.localName == "TY")
        #expect(merged.isConnectable, "a scan response does not make the device unconnectable")
    }

    @Test("a newer advert replaces the older one; a report without RSSI keeps the last measured")
    func latestWins() {
        var table = ScanTable()
        _ = table.receive(
            packet: advertisingReportPacket([(0x00, "AA:BB:CC:00:00:01", adStructure(0x01, [0x06]), -70)]), at: Self.t0)
        _ = table.receive(
            packet: advertisingReportPacket([(0x03, "AA:BB:CC:00:00:01", adStructure(0x01, [0x04]), 127)]),
            at: Self.t0.addingTimeInterval(2))
        let device = table.devices["AA:BB:CC:00:00:01"]
        #expect(device?.rssi == -70)
        #expect(device?.data.flags == 0x04)
        #expect(device?.isConnectable == false)
    }

    @Test("a malformed packet is rejected with its reason and changes nothing")
    func rejected() {
        var table = ScanTable()
        let events = table.receive(packet: hexBytes("04 3E 05 02 01"), at: Self.t0)
        #expect(events == [.rejected(.parameterLengthMismatch(declared: 5, actual: 2))])
        #expect(table.devices.isEmpty)
        #expect(table.receive(packet: hexBytes("04 0E 04 01 0B 20 00"), at: Self.t0).isEmpty)
    }

    @Test("a flood of addresses is capped by dropping the device heard longest ago")
    func capacity() {
        var table = ScanTable(capacity: 3)
        for index in 1...5 {
            _ = table.receive(
                packet: advertisingReportPacket([(0x00, "AA:BB:CC:00:00:0\(index)", [], Int8(-40 - index))]),
                at: Self.t0.addingTimeInterval(Double(index)))
        }
        #expect(Set(table.devices.keys) == ["AA:BB:CC:00:00:03", "AA:BB:CC:00:00:04", "AA:BB:CC:00:00:05"])
        #expect(table.sorted.map(\.address) == ["AA:BB:CC:00:00:03", "AA:BB:CC:00:00:04", "AA:BB:CC:00:00:05"])
        table.forget(notSeenSince: Self.t0.addingTimeInterval(4))
        #expect(Set(table.devices.keys) == ["AA:BB:CC:00:00:04", "AA:BB:CC:00:00:05"])
    }

    /// The whole BLE discovery path: HCI packets built from TUYA.md §1.2 (a), through the scan
    /// table, into the listing `pair ble --scan` prints.
    @Test("a Tuya A201 device heard over HCI is listed with product id, bound flag, uuid, RSSI and profile")
    func tuyaEndToEnd() throws {
        let productID = "if1nolcm"
        let encrypted = try TuyaAdvertisement.encryptUUID("abcdefgh12345678", productID: productID)
        let advert =
            adStructure(0x01, [0x05]) + adStructure(0x02, [0x01, 0xA2])
            + adStructure(0x16, [0x01, 0xA2, 0x00] + Array(productID.utf8))
        let response =
            adStructure(0x09, Array("TY".utf8))
            + adStructure(0xFF, [0xD0, 0x07, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00] + encrypted)
        #expect(advert.count <= 31 && response.count <= 31)
        var table = ScanTable()
        _ = table.receive(packet: advertisingReportPacket([(0x00, "DC:23:4D:00:00:01", advert, -61)]), at: Self.t0)
        _ = table.receive(packet: advertisingReportPacket([(0x04, "DC:23:4D:00:00:01", response, -63)]), at: Self.t0)
        _ = table.receive(
            packet: advertisingReportPacket([(0x00, "11:22:33:44:55:66", adStructure(0xFF, [0x4C, 0x00, 0x02]), -30)]),
            at: Self.t0)

        let profile = DeviceProfile(
            id: "ble-diffuser", name: "BLE diffuser", category: .diffuser, productIDs: [productID], transports: [.ble],
            dataPoints: [DataPointSpec(id: DataPointID(1)!, code: "switch", type: .bool)],
            capabilities: [.power: CapabilityBinding(dataPoint: DataPointID(1)!)])
        let discovery = TuyaDiscovery(
            sightings: table.sorted.map(\.tuyaSighting), library: ProfileLibrary(profiles: [profile]))
        #expect(discovery.devices.count == 1)
        let device = try #require(discovery.devices.first)
        #expect(device.address == "DC:23:4D:00:00:01")
        #expect(device.productID == productID)
        #expect(device.isBound == false)
        #expect(device.rssi == -63)
        #expect(device.advertisement.deviceUUID == "abcdefgh12345678")
        #expect(device.advertisement.protocolVersion == 3)
        #expect(device.profile?.id == "ble-diffuser")
    }

    @Test("an extended advert split over reports is joined, even inside an AD structure, before its data is used")
    func fragmentsJoin() {
        var table = ScanTable()
        let address = "AA:BB:CC:00:00:09"
        let name = adStructure(0x09, Array("TY-diffuser-in-the-hall".utf8))
        let service = adStructure(0x16, [0x50, 0xFD, 0x41, 0x00, 0x00])
        let whole = adStructure(0x01, [0x06]) + name + service
        let cut = 10  // inside the name
        // Connectable extended advert: the first part "more data to come", the rest complete.
        let first = table.receive(
            packet: extendedReportPacket(address: address, properties: 0x21, data: Array(whole[..<cut]), rssi: -70),
            at: Self.t0)
        guard case .seen(let heard, isNew: true) = first.first else {
            Issue.record("the first part was not heard: \(first)")
            return
        }
        #expect(heard.rssi == -70)
        #expect(heard.localName == nil, "no half a name")
        let rest = table.receive(
            packet: extendedReportPacket(address: address, properties: 0x01, data: Array(whole[cut...]), rssi: -65),
            at: Self.t0.addingTimeInterval(0.01))
        guard case .seen(let device, isNew: false) = rest.first else {
            Issue.record("the rest made another device: \(rest)")
            return
        }
        #expect(device.localName == "TY-diffuser-in-the-hall")
        #expect(device.data.serviceData16[0xFD50] == [0x41, 0x00, 0x00])
        #expect(device.data.problem == nil)
        #expect(device.rssi == -65)
        // The next advert from it starts afresh.
        let next = table.receive(
            packet: extendedReportPacket(address: address, properties: 0x01, data: whole), at: Self.t0)
        guard case .seen(let again, _) = next.first else { return }
        #expect(again.localName == "TY-diffuser-in-the-hall")
    }

    @Test(
        "a legacy advert or another set from the same address between the parts is not joined; a stale part is dropped"
    )
    func fragmentsKeptApart() {
        var table = ScanTable()
        let address = "AA:BB:CC:00:00:0C"
        let whole = adStructure(0x01, [0x06]) + adStructure(0x09, Array("TY-lamp-on-the-desk".utf8))
        let legacy = adStructure(0x09, Array("TY".utf8))
        func send(_ properties: UInt16, _ data: [UInt8], sid: UInt8 = 1, at time: Date = Self.t0) {
            _ = table.receive(
                packet: extendedReportPacket(address: address, properties: properties, data: data, sid: sid), at: time)
        }
        send(0x21, Array(whole[..<8]))
        send(0x13, legacy)  // a legacy ADV_IND, reported through extended scanning
        send(0x21, [0x05, 0x09, 0x41], sid: 2)  // another advertising set's first part
        #expect(table.devices[address]?.localName == "TY")
        send(0x01, Array(whole[8...]))
        #expect(table.devices[address]?.localName == "TY-lamp-on-the-desk")
        #expect(table.devices[address]?.data.problem == nil)
        // Set 2's part waited longer than a chain takes: its next advert stands alone.
        send(0x01, whole, sid: 2, at: Self.t0.addingTimeInterval(10))
        #expect(table.devices[address]?.localName == "TY-lamp-on-the-desk")
        #expect(table.devices[address]?.data.problem == nil)
    }

    @Test("a chain the controller cut short does not replace an advert already whole")
    func truncatedChain() {
        var table = ScanTable()
        let address = "AA:BB:CC:00:00:0D"
        let whole = adStructure(0x01, [0x06]) + adStructure(0x09, Array("TY-diffuser".utf8))
        _ = table.receive(packet: extendedReportPacket(address: address, properties: 0x01, data: whole), at: Self.t0)
        _ = table.receive(
            packet: extendedReportPacket(address: address, properties: 0x21, data: Array(whole[..<5]), rssi: -50),
            at: Self.t0)
        // Data status 10: incomplete, truncated, no more to come.
        _ = table.receive(
            packet: extendedReportPacket(address: address, properties: 0x41, data: Array(whole[5..<8])), at: Self.t0)
        #expect(table.devices[address]?.localName == "TY-diffuser")
        #expect(table.devices[address]?.rssi == -60, "still heard")
    }

    @Test("an advertiser that never ends its data is held to 1,650 bytes, and fragments to the table's capacity")
    func fragmentsBounded() {
        var table = ScanTable(capacity: 4)
        let structure = adStructure(0xFF, [UInt8](repeating: 0xAB, count: 8))  // 10 bytes
        let chunk = Array([[UInt8]](repeating: structure, count: 20).joined())  // 200 bytes
        for _ in 0..<50 {
            _ = table.receive(
                packet: extendedReportPacket(address: "AA:BB:CC:00:00:0A", properties: 0x21, data: chunk), at: Self.t0)
        }
        _ = table.receive(
            packet: extendedReportPacket(address: "AA:BB:CC:00:00:0A", properties: 0x01, data: chunk), at: Self.t0)
        #expect(table.devices["AA:BB:CC:00:00:0A"]?.data.structures.count == ScanTable.maximumData / 10)
        // A flood of advertisers that never finish drops what was held: the first one's last
        // part then stands alone.
        _ = table.receive(
            packet: extendedReportPacket(address: "AA:BB:CC:00:00:0B", properties: 0x21, data: chunk), at: Self.t0)
        for index in 0..<100 {
            let address = String(format: "AA:BB:CC:00:01:%02X", index)
            _ = table.receive(
                packet: extendedReportPacket(address: address, properties: 0x21, data: chunk), at: Self.t0)
        }
        _ = table.receive(
            packet: extendedReportPacket(address: "AA:BB:CC:00:00:0B", properties: 0x01, data: chunk), at: Self.t0)
        #expect(table.devices["AA:BB:CC:00:00:0B"]?.data.structures.count == 20)
        #expect(table.devices.count <= 4)
    }
}

extension DiscoveredDevice {
    /// The glue a consumer of both modules writes: BLELink's parsed AD fields into TuyaWire's input.
    var tuyaSighting: TuyaAdvertSighting {
        let data = self.data
        return TuyaAdvertSighting(
            address: address, rssi: rssi,
            fields: TuyaAdvertisingFields(
                serviceUUIDs: data.serviceUUIDs16, serviceData: data.serviceData16,
                manufacturerData: data.manufacturerData, localName: data.localName))
    }
}
