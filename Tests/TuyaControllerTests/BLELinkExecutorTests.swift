import BLELink
import DeviceSimulator
import Foundation
import Testing
import TuyaCore
import YoullTestSupport

@testable import TuyaController

/// A BLE device over a socketpair (the simulated peripheral behind a real GATT client): the
/// link handles each packet on the reader thread that read it, and a caller preferring the
/// link's executor (`TuyaController.preferredExecutor(for:)`) sends and is resumed there. It
/// must get exactly what any other caller gets.
@Suite("Sending from a BLE link's reader thread", .serialized, .timeLimit(.minutes(2)))
struct BLELinkExecutorTests {
    static let identity = (uuid: "tuyaexec01234567", key: "0123456789abcdef", devId: "bfexecble00000001")
    static let address = "DC:23:4D:BE:4C:02"

    @Test("commands sent from a task on the link's executor are each confirmed, in order, on the reader thread")
    func confirmedInOrder() async throws {
        var profile = try #require(BLEDeviceLinkTests.library.profile(id: "ble-diffuser-dituo"))
        profile.frameGapMilliseconds = 0
        let device = try SimulatedBLEDevice(
            identity: .init(
                uuid: Self.identity.uuid, localKey: Self.identity.key, devId: Self.identity.devId, protocolVersion: 4),
            profile: profile, options: .init(serverMTU: 247), seed: 3)
        let peripheral = SimulatedBLEPeripheral(device: device)
        let air = SimulatedBLEAir()
        await air.place(peripheral, at: Self.address, layout: .fd50)
        let radio = BLERadio(adapter: "socketpair") { identity in
            GATTTuyaTransport { try await air.connect(to: identity.address) }
        }
        let controller = TuyaController(
            bus: InMemoryBus(), library: ProfileLibrary(profiles: [profile]), radio: radio)
        try await controller.start()
        do {
            let outcome = try await controller.pairBLE(
                devId: Self.identity.devId, localKey: Self.identity.key,
                identity: try BLEIdentity(address: Self.address, uuid: Self.identity.uuid), profileID: profile.id)
            guard case .paired(let paired) = outcome else {
                Issue.record("pairing: \(outcome)")
                throw DeadlineExceeded(what: "a paired diffuser")
            }
            let executor = try #require(
                await controller.preferredExecutor(for: paired.id), "a connected socket link has one")
            let modes = ["small", "large", "small", "small", "large"]
            let (confirmed, threads) = try await withTaskExecutorPreference(executor) {
                var confirmed: [String?] = []
                var threads: Set<String> = []
                for mode in modes {
                    let state = try await controller.send(.diffuser(DiffuserCommand(mistMode: mode)), to: paired.id)
                    guard case .diffuser(let diffuser) = state else { throw DeadlineExceeded(what: "a diffuser state") }
                    confirmed.append(diffuser.mistMode)
                    threads.insert(currentThreadName())
                }
                return (confirmed, threads)
            }
            #expect(confirmed == modes, "each command's own mode, confirmed by the device")
            #expect(threads == ["youll-ble-rx"], "resumed on the reader thread each time")
            let mistMode = try #require(profile.capabilities[.mistMode]?.dataPoint)
            #expect(await peripheral.state[mistMode] == .enumeration("large"), "the device holds the last")
        } catch {
            await controller.stop()
            throw error
        }
        await controller.stop()
    }
}
