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
}
