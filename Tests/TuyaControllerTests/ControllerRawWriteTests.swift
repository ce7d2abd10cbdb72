import Testing
import TuyaCore
import YoullTestSupport

@testable import TuyaController

/// `write`: data points as they are (a maintenance rule's `reset_dp`), checked against the
/// device's profile before anything goes out. Over the in-memory bus and a fake device.
@Suite("TuyaController raw data point writes")
struct ControllerRawWriteTests {
    let id = DeviceID(ControllerInMemoryTests.devId)!
    static func dp(_ raw: Int) -> DataPointID { DataPointID(raw)! }

    @Test("a declared, writable DP with a fitting value is written in one frame and confirmed")
    func confirmed() async throws {
        let rig = try await ControllerInMemoryTests.Rig()
        _ = try await rig.pair()
        let state = try await rig.controller.write([Self.dp(1): .bool(false), Self.dp(3): .value(200)], to: id)
        guard case .light(let light) = state else {
            Issue.record("expected a light state, got \(state)")
            return
        }
        #expect(light.power == false)
        #expect(rig.device.dps["1"] == .bool(false) && rig.device.dps["3"] == .integer(200))
        await rig.controller.stop()
    }

    @Test(
        "a DP the profile does not declare, a value of another type or out of range is refused, naming it, and nothing is sent"
    )
    func refused() async throws {
        // A write that went out anyway would fail at once on its confirmation, not hang.
        let rig = try await ControllerInMemoryTests.Rig { $0.confirmationTimeout = .zero }
        _ = try await rig.pair()
        let cases: [(DataPoints, String)] = [
            ([Self.dp(9): .bool(true)], "DP '9' is not in the profile"),
            ([Self.dp(1): .value(1)], "DP '1': expected bool"),
            ([Self.dp(2): .value(300)], "DP '2': 300 is outside 25...255"),
        ]
        for (writes, expected) in cases {
            let error = await #expect(throws: ControllerError.self) {
                try await rig.controller.write(writes, to: id)
            }
            guard case .invalidCommand(let device, let reason) = error else {
                Issue.record("expected invalidCommand for \(writes), got \(String(describing: error))")
                continue
            }
            #expect(device == id)
            #expect(reason.contains(expected), "\(reason)")
            #expect(reason.contains("white-bulb"))
        }
        #expect(rig.device.dps["1"] == .bool(true) && rig.device.dps["2"] == .integer(255))
        await #expect(throws: ControllerError.unknownDevice("nobody")) {
            try await rig.controller.write([Self.dp(1): .bool(true)], to: DeviceID("nobody")!)
        }
        await rig.controller.stop()
    }

    /// The white bulb with a filter-style counter reset (write-only) and a read-only DP.
    static let resettingBulb: ProfileLibrary = {
        var profile = Fixtures.whiteBulb
        profile.dataPoints += [
            DataPointSpec(id: dp(102), code: "counter_reset", type: .bool, access: .writeOnly),
            DataPointSpec(id: dp(103), code: "hours_used", type: .value, range: 0...100_000, access: .readOnly),
        ]
        return ProfileLibrary(profiles: [profile])
    }()

    @Test("a write-only DP goes out without waiting for a report that never comes; a read-only one is refused")
    func writeOnlyIsNotWaitedFor() async throws {
        // A write that waited for its confirmation would fail at once.
        let device = FakeTuyaDevice(
            id: ControllerInMemoryTests.devId, key: ControllerInMemoryTests.key,
            dps: ["1": .bool(true), "2": .integer(255), "3": .integer(0)], unreported: ["102"])
        let rig = try await ControllerInMemoryTests.Rig(device: device, library: Self.resettingBulb) {
            $0.confirmationTimeout = .zero
        }
        _ = try await rig.pair()
        let before = rig.bus.publishedCount
        _ = try await rig.controller.write([Self.dp(102): .bool(true)], to: id)
        // The frame is on its way: the device gets it.
        try await withDeadline(10, "the reset frame") {
            while rig.device.dps["102"] != .bool(true) {
                try Task.checkCancellation()
                await Task.yield()
            }
        }
        #expect(rig.bus.publishedCount == before + 1)
        let error = await #expect(throws: ControllerError.self) {
            try await rig.controller.write([Self.dp(103): .value(5)], to: id)
        }
        guard case .invalidCommand(_, let reason) = error else {
            Issue.record("expected invalidCommand, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("DP103 of white-bulb is read-only"), "\(reason)")
        await rig.controller.stop()
    }
}
