import Testing
import TuyaCore

@testable import youll_devices

/// Pure: what `pair ble --scan` keeps of the `device_found` events it hears.
@Suite("pair ble --scan list")
struct ScanListTests {
    static func device(_ address: String, rssi: Int64) -> JSONValue {
        .object(["address": .string(address), "rssi": .integer(rssi), "transport": .string("ble")])
    }

    @Test("a device heard twice is listed once, with its latest report, in the order first heard")
    func oncePerAddress() {
        var list = ScanList()
        list.add(Self.device("AA:00", rssi: -80))
        list.add(Self.device("BB:00", rssi: -70))
        list.add(Self.device("AA:00", rssi: -60))
        #expect(list.devices == [Self.device("AA:00", rssi: -60), Self.device("BB:00", rssi: -70)])
        #expect(list.dropped == 0)
    }

    @Test("a flood of forged devices keeps the first 256 and counts the rest")
    func bounded() {
        var list = ScanList()
        for index in 0..<10_000 { list.add(Self.device("D\(index)", rssi: -50)) }
        #expect(list.devices.count == ScanList.limit)
        #expect(list.devices.first == Self.device("D0", rssi: -50))
        #expect(list.dropped == 10_000 - ScanList.limit)
        // One already listed still updates.
        list.add(Self.device("D1", rssi: -40))
        #expect(list.devices[1] == Self.device("D1", rssi: -40))
    }
}
