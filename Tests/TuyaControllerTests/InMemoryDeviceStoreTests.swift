import Testing
import TuyaCore
import TuyaWire

@testable import TuyaController

@Suite("The in-memory device store")
struct InMemoryDeviceStoreTests {
    private static let brightness = DataPointID(22)!

    private static func device(_ index: Int) throws -> StoredDevice {
        let id = try #require(DeviceID("bfstore\(String(format: "%013d", index))"))
        return StoredDevice(
            device: TuyaDevice(
                id: id, name: "lamp \(index)", profileID: "rgbcct-bulb-v2", category: .light, transport: .lan),
            localKey: try AESKey(localKey: "0123456789abcdef"))
    }

    @Test(
        "desired states queued from links' threads while the store renames devices and reads them are all kept, the last one per device"
    )
    func queuedWhileChanging() async throws {
        let devices = try (0..<16).map(Self.device)
        let store = InMemoryDeviceStore(devices: devices)
        let rounds = 1000
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    for value in 1...rounds {
                        _ = store.queueDesired([Self.brightness: .value(Int32(value))], for: device.device.id)
                    }
                }
            }
            group.addTask {
                for round in 0..<rounds {
                    let device = devices[round % devices.count]
                    await store.rename(device.device.id, to: "lamp \(round)")
                    _ = await store.loadDevices()
                }
            }
        }
        let loaded = await store.loadDevices()
        #expect(loaded.count == devices.count)
        for device in loaded {
            #expect(device.desired == [Self.brightness: .value(Int32(rounds))], "\(device.device.id)")
        }
    }

    @Test("a state queued for a device that is then removed does not bring it back")
    func removedStaysRemoved() async throws {
        let device = try Self.device(1)
        let store = InMemoryDeviceStore(devices: [device])
        #expect(store.queueDesired([Self.brightness: .value(10)], for: device.device.id))
        await store.remove(device.device.id)
        #expect(await store.loadDevices().isEmpty)
    }
}
