import Testing
import YoullTestSupport
import TuyaCore
import TuyaWire

@testable import TuyaController

/// Rekey, rename and refresh over the in-memory bus with a manual clock.
@Suite("TuyaController: rekey, rename, refresh")
struct ControllerRekeyTests {
    typealias Rig = ControllerInMemoryTests.Rig
    let id = DeviceID(ControllerInMemoryTests.devId)!

    @Test("a rekey nobody answers leaves the device registered and drivable with its old key")
    func rekeyNoAnswer() async throws {
        let rig = try await Rig()
        #expect(try await rig.pair().pairedProfileID == "white-bulb")
        // Renamed first: a failed rekey must restore the device as it is now, not as it was paired.
        try await rig.controller.rename(id, to: "study")
        rig.device.setMuted(true)
        async let outcome = rig.controller.rekey(id, localKey: "fedcba9876543210")
        // The pairing deadline, 15 s from now: not just any timer, since the old link may
        // arm its answer timeout (5 s) before the rekey stops it, and moving the clock then
        // would leave the deadline, armed after the move, 15 s away for ever (CI hung so).
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(15)))
        rig.clock.advance(by: .seconds(15))
        #expect(try await outcome == .noAnswer)
        #expect(await rig.controller.devices().map(\.name) == ["study"])
        #expect(await rig.controller.device(id) != nil)
        rig.device.setMuted(false)
        try await rig.controller.refresh(id)
        #expect(await rig.controller.status(of: id) != nil)
        await rig.controller.stop()
    }

    @Test("a rekey with the right key keeps the name and announces no new pairing; rename changes only the name")
    func rekeyAndRename() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        let outcome = try await rig.controller.rekey(id, localKey: ControllerInMemoryTests.key)
        guard case .paired(let device) = outcome else {
            Issue.record("rekey: \(outcome)")
            return
        }
        #expect(device.name == "desk")
        let renamed = try await rig.controller.rename(id, to: "study")
        #expect(renamed.name == "study")
        #expect(await rig.controller.devices().map(\.name) == ["study"])
        await #expect(throws: ControllerError.unknownDevice("nobody")) {
            try await rig.controller.rename(DeviceID("nobody")!, to: "x")
        }
        await rig.controller.stop()
    }

    @Test("a device is found by its new name right after a rename, by its id, and no longer by its old name")
    func lookupByName() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        #expect(await rig.controller.device(named: "desk")?.id == id)
        try await rig.controller.rename(id, to: "study")
        #expect(await rig.controller.device(named: "study")?.id == id)
        #expect(await rig.controller.device(named: "desk") == nil)
        #expect(await rig.controller.device(named: id.rawValue)?.name == "study")
        #expect(await rig.controller.device(named: "stud") == nil)
        await rig.controller.stop()
    }
}

/// A store whose disk is full.
private struct FullDiskStore: DeviceStore {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    func loadDevices() async throws -> [StoredDevice] { [] }
    func save(_ device: StoredDevice) async throws { throw DiskFull() }
    func saveDesired(_ desired: DataPoints, for id: DeviceID) async throws { throw DiskFull() }
    func rename(_ id: DeviceID, to name: String) async throws { throw DiskFull() }
    func saveLANEndpoint(_ endpoint: LANEndpoint, for id: DeviceID) async throws { throw DiskFull() }
    func remove(_ id: DeviceID) async throws { throw DiskFull() }
}

@Suite("TuyaController: pairing is saved before it is reported")
struct ControllerPairingSaveTests {
    @Test("a device that answers but cannot be saved is reported as not saved, and is not paired")
    func saveFailure() async throws {
        let bus = InMemoryBus()
        let device = FakeTuyaDevice(
            id: ControllerInMemoryTests.devId, key: ControllerInMemoryTests.key,
            dps: ["1": .bool(true), "2": .integer(255), "3": .integer(0)])
        bus.attach(device)
        let controller = TuyaController(
            bus: bus, library: Fixtures.library, store: FullDiskStore(), clock: ManualClock(),
            unixTime: { 1_700_000_000 }, sequenceSeed: { 1 })
        try await controller.start()
        let outcome = try await controller.pair(
            devId: ControllerInMemoryTests.devId, localKey: ControllerInMemoryTests.key)
        #expect(outcome == .notSaved(reason: "disk full"))
        #expect("\(outcome)".contains("could not save"))
        #expect(await controller.devices().isEmpty)
        await controller.stop()
    }
}
