import DeviceSimulator
import LANLink
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// `TuyaController.submit`: a command queued on the device's link in the caller's order,
/// its confirmation awaited later, against a simulated LAN bulb over real TCP.
@Suite("Submitting commands without waiting for each confirmation", .serialized, .timeLimit(.minutes(2)))
struct ControllerSubmitTests {
    @Test(
        "commands submitted back to back are queued in that order, seen in the pending state at once, and each confirmed"
    )
    func submittedInOrder() async throws {
        let library = Repository.shippedProfiles
        let profile = try #require(library.profile(id: "rgbcct-bulb-v2"))
        try await withLANFleet(try LANSimulatorOptions.oneLight(.v3_3), library: library) { fleet, controller in
            try await controller.start()
            let lamp = try #require(fleet.identities.first)
            let outcome = try await controller.pairLAN(
                devId: lamp.devId, localKey: lamp.localKey, ip: lamp.ip, version: "3.3", profileID: profile.id)
            guard case .paired(let paired) = outcome else {
                Issue.record("\(outcome)")
                throw DeadlineExceeded(what: "a paired lamp")
            }
            let first = try await controller.submit(.light(LightCommand(power: true, brightness: 20)), to: paired.id)
            let second = try await controller.submit(.light(LightCommand(brightness: 70)), to: paired.id)
            let third = try await controller.submit(.light(LightCommand(power: false)), to: paired.id)
            guard case .light(let pending)? = await controller.pendingState(of: paired.id) else {
                throw DeadlineExceeded(what: "a light's pending state")
            }
            #expect(pending.power == false && pending.brightness == 70, "all three are pending: \(pending)")
            _ = try await first.confirmation()
            _ = try await second.confirmation()
            _ = try await third.confirmation()
            let held = try #require(await fleet.state(of: lamp.devId))
            guard case .light(let light) = DataPointMapper(profile: profile).state(from: held) else {
                throw DeadlineExceeded(what: "the simulated lamp's state")
            }
            #expect(light.power == false && light.brightness == 70, "the lamp holds the last of each: \(light)")
            await #expect(throws: ControllerError.self) {
                _ = try await controller.submit(.light(LightCommand(power: true)), to: try #require(DeviceID("nobody")))
            }
        }
    }
}
