import DeviceSimulator
import LANLink
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// A caller that sends to one LAN device from a task preferring the device's executor
/// (`TuyaController.preferredExecutor(for:)`): its commands are written from the link's
/// event loop and it is resumed there, so a command costs the two wake-ups a bare socket
/// round trip costs instead of four. It must get exactly what any other caller gets.
@Suite("Sending from a LAN link's executor", .serialized, .timeLimit(.minutes(2)))
struct LANLinkExecutorTests {
    @Test(
        "commands sent from a task on the device's executor are each confirmed, in order, over real TCP",
        arguments: [LANProtocolVersion.v3_3, .v3_4, .v3_5])
    func confirmedInOrder(version: LANProtocolVersion) async throws {
        var library = Repository.shippedProfiles
        var profile = try #require(library.profile(id: "rgbcct-bulb-v2"))
        profile.frameGapMilliseconds = 0
        library = ProfileLibrary(profiles: library.all.filter { $0.id != profile.id } + [profile])
        try await withLANFleet(try LANSimulatorOptions.oneLight(version), library: library) { fleet, controller in
            try await controller.start()
            let lamp = try #require(fleet.identities.first)
            let outcome = try await controller.pairLAN(
                devId: lamp.devId, localKey: lamp.localKey, ip: lamp.ip, version: version.rawValue,
                profileID: profile.id)
            guard case .paired(let paired) = outcome else {
                Issue.record("\(version): \(outcome)")
                throw DeadlineExceeded(what: "a paired lamp")
            }
            let executor = try #require(await controller.preferredExecutor(for: paired.id), "a LAN link has one")
            let levels = [10, 35, 60, 85, 42]
            let confirmed = try await withTaskExecutorPreference(executor) {
                var confirmed: [Int?] = []
                for level in levels {
                    let state = try await controller.send(.light(LightCommand(brightness: level)), to: paired.id)
                    guard case .light(let light) = state else { throw DeadlineExceeded(what: "a light's state") }
                    confirmed.append(light.brightness)
                }
                return confirmed
            }
            #expect(confirmed == levels, "\(version): each command's own brightness, confirmed by the device")
            let held = try #require(await fleet.state(of: lamp.devId))
            guard case .light(let light) = DataPointMapper(profile: profile).state(from: held) else {
                throw DeadlineExceeded(what: "the simulated lamp's state")
            }
            #expect(light.brightness == 42, "\(version): the device holds the last command")
        }
    }

    @Test("an unknown device has no executor to prefer")
    func unknownDevice() async throws {
        let controller = TuyaController(bus: InMemoryBus(), library: Repository.shippedProfiles)
        let id = try #require(DeviceID("bf0nosuchdevice0000001"))
        #expect(await controller.preferredExecutor(for: id) == nil)
    }

    @Test("a caller on the link's executor is resumed on the link's event loop, not on another thread")
    func resumedOnTheLoop() async throws {
        let rig = try LANDeviceLinkTests.Rig(version: .v3_4)
        await rig.link.start()
        try await rig.waitFor("online") { $0.availability == .online }
        let link = rig.link
        let onLoop = try await withTaskExecutorPreference(link.taskExecutor) {
            _ = try await link.send([Fixtures.dp(1): .bool(true)])
            return link.loop.isCurrent
        }
        #expect(onLoop)
        #expect(rig.device.dps["1"] == .bool(true))
        await rig.link.stop()
    }
}
