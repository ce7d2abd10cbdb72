import BLELink
import Foundation
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

@testable import Gateway

/// The pairing window's BLE scan against a scanner that plays the air: anyone nearby can
/// advertise as many Tuya addresses as they like.
@Suite("BLE pairing scan")
struct BLEPairingScanTests {
    /// Yields the devices given one per read, then ends; `isDrained` once the scan has asked
    /// for one more than there are (it handled every one before asking).
    actor ScriptedScanner: BLEDeviceScanning {
        final class Cursor: Sendable {
            let next = Atomic(0)
            let drained = Atomic(false)
        }
        let devices: [DiscoveredDevice]
        private let cursor = Cursor()
        init(_ devices: [DiscoveredDevice]) { self.devices = devices }
        nonisolated var isDrained: Bool { cursor.drained.load(ordering: .acquiring) }
        func discoveries() async throws -> AsyncStream<DiscoveredDevice> {
            let (devices, cursor) = (devices, cursor)
            return AsyncStream {
                let index = cursor.next.add(1, ordering: .relaxed).oldValue
                guard index < devices.count else {
                    cursor.drained.store(true, ordering: .releasing)
                    return nil
                }
                return devices[index]
            }
        }
        func stop() async {}
    }

    actor Found {
        private(set) var addresses: [String] = []
        func add(_ address: String) { addresses.append(address) }
    }

    /// An A201 advert without its scan response (protocol/TUYA.md §1.2): the service UUID
    /// list and service data with the product id.
    static func tuyaDevice(_ index: Int) -> DiscoveredDevice {
        let id = Array("if1nolcm".utf8)
        let bytes: [UInt8] = [0x03, 0x03, 0x01, 0xA2] + [UInt8(4 + id.count), 0x16, 0x01, 0xA2, 0x00] + id
        let address = String(
            format: "DC:23:%02X:%02X:%02X:%02X", (index >> 24) & 0xFF, (index >> 16) & 0xFF, (index >> 8) & 0xFF,
            index & 0xFF)
        return DiscoveredDevice(
            address: address, addressType: .publicDevice, rssi: -60, firstSeen: Date(), lastSeen: Date(),
            advertisement: AdvertisingData(bytes: bytes), scanResponse: nil, isConnectable: true)
    }

    @Test("each Tuya device is reported once per window, and a flood of addresses at most 1,024 times")
    func bounded() async throws {
        // Device 0 is heard twice before the cap is reached, device 1 twice after it.
        let devices = [Self.tuyaDevice(0)] + (0..<3_000).map(Self.tuyaDevice) + [Self.tuyaDevice(1)]
        let scanner = ScriptedScanner(devices)
        let scan = BLEPairingScan(scanner: scanner, adapter: "hci0", library: ProfileLibrary(profiles: []))
        let found = Found()
        try await scan.start { device in await found.add(device.address) }
        try await withDeadline(.seconds(20), "the scan to read every advert") {
            while !scanner.isDrained { await Task.yield() }
        }
        await scan.stop()
        let addresses = await found.addresses
        #expect(addresses.count == BLEPairingScan.limit)
        #expect(Set(addresses).count == addresses.count, "once each")
    }
}
