import DeviceSimulator
import Foundation
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport
import Timing

@testable import TuyaController

/// BLE devices through `TuyaController` itself: `pairBLE`, the registry, the store and
/// `TuyaControllerProtocol`, with the real simulated Tuya BLE device core joined to each
/// link in memory (no socket; the socketpair suites cover the GATT layers) on a manual clock.
@Suite("TuyaController with BLE devices")
struct ControllerBLETests {
    static let uuid = "tuyauuid01234567"
    static let localKey = "0123456789abcdef"
    static let devId = "bf0123456789abcdefble"
    static let address = "DC:23:4D:12:34:56"
    static let productID = "if1nolcm"

    /// A controller whose radio reaches one simulated diffuser (any other address is out of range).
    struct Rig {
        let clock = ManualClock()
        let store: InMemoryDeviceStore
        let transport: InMemoryBLETransport
        let controller: TuyaController
        let events: Mailbox<ControllerEvent>

        init(
            store: InMemoryDeviceStore = InMemoryDeviceStore(), radio: BLERadio? = nil,
            transport: InMemoryBLETransport? = nil
        ) async throws {
            let profile = try #require(BLEDeviceLinkTests.library.profile(id: "ble-diffuser-dituo"))
            let device = try SimulatedBLEDevice(
                identity: .init(uuid: uuid, localKey: localKey, devId: devId, protocolVersion: 4), profile: profile,
                seed: 5)
            let transport = transport ?? InMemoryBLETransport(device: device)
            self.transport = transport
            self.store = store
            let reachable =
                radio
                ?? BLERadio(adapter: "test") { identity in
                    identity.address == address ? transport as any TuyaBLETransport : UnreachableTransport()
                }
            controller = TuyaController(
                bus: InMemoryBus(), library: BLEDeviceLinkTests.library, store: store, radio: reachable, clock: clock,
                unixTime: { 1_700_000_000 })
            events = controller.events()
            try await controller.start()
        }

        func pair(key: String = localKey, uuid: String = uuid, address: String = address) async throws -> PairingOutcome
        {
            try await controller.pairBLE(
                devId: devId, localKey: key, identity: BLEIdentity(address: address, uuid: uuid), name: "aroma",
                productID: productID)
        }
    }

    struct UnreachableTransport: TuyaBLETransport {
        struct OutOfRange: Error, CustomStringConvertible {
            var description: String { "connection timed out" }
        }
        func connect() async throws { throw OutOfRange() }
        func write(_ packets: [[UInt8]]) {}
        func packets() -> AsyncStream<[UInt8]> { AsyncStream { $0.finish() } }
        func disconnect() async {}
    }

    static func diffuser(_ state: DeviceState?) -> DiffuserState? {
        if case .diffuser(let diffuser)? = state { diffuser } else { nil }
    }

    @Test("pairBLE binds the device, saves it with its address and uuid, announces it, and drives it like any other")
    func pairAndDrive() async throws {
        let rig = try await Rig()
        let outcome = try await rig.pair()
        guard case .paired(let device) = outcome else {
            Issue.record("expected paired, got \(outcome)")
            return
        }
        #expect(device.transport == .ble)
        #expect(device.profileID == "ble-diffuser-dituo")
        #expect(await rig.controller.devices().map(\.name) == ["aroma"])
        #expect(await rig.controller.status(of: device.id)?.availability == .online)

        let saved = try #require(await rig.store.loadDevices().first)
        #expect(saved.ble?.address == Self.address)
        #expect(saved.ble?.uuid == Self.uuid)
        #expect(saved.localKey == (try AESKey(localKey: Self.localKey)))

        let state = try await rig.controller.send(
            .diffuser(DiffuserCommand(power: true, mistMode: "large")), to: device.id)
        #expect(Self.diffuser(state)?.mistMode == "large")
        #expect(rig.transport.device.state[DataPointID(3)!] == .enumeration("large"))
        #expect(Self.diffuser(await rig.controller.confirmedState(of: device.id))?.power == true)

        var sawPaired = false
        for await event in rig.events {
            if case .devicePaired(let paired) = event, paired.id == device.id { sawPaired = true }
            if case .stateChanged(let id, _) = event, id == device.id, sawPaired { break }
        }
        #expect(sawPaired)
        await rig.controller.stop()
    }

    @Test("each BLE pairing failure is its own outcome, and none leaves a device behind")
    func failures() async throws {
        let rig = try await Rig()
        #expect(try await rig.pair(uuid: "notthedeviceuuid") == .refused)
        #expect(try await rig.pair(address: "DC:23:4D:00:00:01") == .notFound(reason: "connection timed out"))
        #expect(await rig.controller.devices().isEmpty)
        #expect(await rig.store.loadDevices().isEmpty)

        // A device silently drops frames it cannot decrypt: device info goes unanswered
        // until the session's 60 s response timeout, which names the key.
        let attempt = Task { try await rig.pair(key: "fedcba9876543210") }
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(60)))
        rig.clock.advance(by: .seconds(60))
        #expect(try await attempt.value == .wrongKey)
        #expect(await rig.controller.devices().isEmpty)

        await #expect(throws: PairingError.bleProfileNeeded(productID: "unknownpid")) {
            try await rig.controller.pairBLE(
                devId: Self.devId, localKey: Self.localKey,
                identity: BLEIdentity(address: Self.address, uuid: Self.uuid), productID: "unknownpid")
        }
        await rig.controller.stop()
    }

    @Test("without an adapter, pairing says why and stored BLE devices stay listed, offline with the reason")
    func unavailable() async throws {
        let reason = "the kernel has no Bluetooth support"
        let key = try AESKey(localKey: Self.localKey)
        let stored = StoredDevice(
            device: TuyaDevice(
                id: DeviceID(Self.devId)!, name: "aroma", profileID: "ble-diffuser-dituo", category: .diffuser,
                transport: .ble),
            localKey: key, desired: [DataPointID(1)!: .bool(true)],
            ble: try BLEIdentity(address: Self.address, uuid: Self.uuid))
        let store = InMemoryDeviceStore(devices: [stored])
        let rig = try await Rig(store: store, radio: .unavailable(reason: reason))
        let id = DeviceID(Self.devId)!
        #expect(await rig.controller.devices().map(\.id) == [id])
        for await event in rig.events {
            if case .availabilityChanged(id, let status) = event, status.availability == .offline { break }
        }
        #expect(await rig.controller.status(of: id)?.hint?.contains(reason) == true)
        let outcome = try await rig.controller.pairBLE(
            devId: "bfother0000000000001", localKey: Self.localKey,
            identity: BLEIdentity(address: "DC:23:4D:00:00:02", uuid: Self.uuid), productID: Self.productID)
        #expect(outcome == .bleUnavailable(reason: reason))
        // The desired state is kept for when BLE works again.
        #expect(await store.loadDevices().first?.desired == [DataPointID(1)!: .bool(true)])
        await rig.controller.stop()
    }

    @Test("a stored BLE device is loaded at start, connects, and its saved desired state is applied")
    func restart() async throws {
        let store = InMemoryDeviceStore()
        let first = try await Rig(store: store)
        _ = try await first.pair()
        let id = DeviceID(Self.devId)!
        _ = try await first.controller.send(.diffuser(DiffuserCommand(power: true, mistMode: "large")), to: id)
        await first.controller.stop()
        // The device loses power while the gateway is down and boots with its defaults.
        first.transport.deviceActs { device in device.powerCycle() }
        #expect(first.transport.device.state[DataPointID(3)!] != .enumeration("large"))

        let second = try await Rig(store: store, transport: first.transport)
        for await event in second.events {
            if case .availabilityChanged(id, let status) = event, status.availability == .online { break }
        }
        try await withDeadline(10, "desired mode re-applied") {
            await first.transport.waitUntil { $0.state[DataPointID(3)!] == .enumeration("large") }
        }
        #expect(await second.controller.devices().first?.transport == .ble)
        await second.controller.stop()
    }

    @Test("rekey a BLE device: a wrong key keeps the old one working; the right one is proved and saved")
    func rekey() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        let id = DeviceID(Self.devId)!
        let attempt = Task { try await rig.controller.rekey(id, localKey: "fedcba9876543210") }
        // The pairing deadline (armed once the old link has stopped), then the new session's
        // response timeout: not any two timers, since the old link's may still be armed.
        let start = rig.clock.now
        await rig.clock.waitForSleeper(dueAt: start.advanced(by: .seconds(75)))
        await rig.clock.waitForSleeper(dueAt: start.advanced(by: .seconds(60)))
        rig.clock.advance(by: .seconds(60))
        #expect(try await attempt.value == .wrongKey)
        #expect(await rig.store.loadDevices().first?.localKey == (try AESKey(localKey: Self.localKey)))
        let state = try await rig.controller.send(.diffuser(DiffuserCommand(power: true)), to: id)
        #expect(Self.diffuser(state)?.power == true)

        guard case .paired = try await rig.controller.rekey(id, localKey: Self.localKey) else {
            Issue.record("the right key was not accepted")
            return
        }
        #expect(await rig.controller.devices().map(\.name) == ["aroma"])
        #expect(await rig.store.loadDevices().first?.ble?.address == Self.address)
        await rig.controller.stop()
    }
}
