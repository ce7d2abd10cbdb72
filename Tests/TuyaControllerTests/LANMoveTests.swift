import DeviceSimulator
import LANLink
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// A paired LAN bulb that gets a new address (a DHCP lease change), against the simulated
/// bulb over real TCP. The device announces itself from the new address at once, while the
/// gateway's session to the old one may still look up: the move is held until the session
/// drops, then taken from the next broadcast.
@Suite("A LAN device that moves to a new address", .serialized, .timeLimit(.minutes(2)))
struct LANMoveTests {
    static func announcement(of lamp: LANDeviceIdentity, from ip: String) throws -> LANDatagram {
        let broadcast = LANBroadcast(gwId: lamp.devId, ip: ip, version: lamp.version.rawValue)
        let bytes = try LANDiscovery.encode(broadcast, format: LANDiscovery.Format(version: lamp.version))
        return LANDatagram(bytes: bytes, source: ip, port: 6667)
    }

    @Test("heard at a new address while its session is up, it is followed there once the session drops")
    func followedAfterTheSessionDrops() async throws {
        let library = Repository.shippedProfiles
        try await withLANFleet(try LANSimulatorOptions.oneLight(.v3_3), library: library) { fleet, controller in
            let events = controller.events()
            try await controller.start()
            let lamp = try #require(fleet.identities.first)
            let outcome = try await controller.pairLAN(
                devId: lamp.devId, localKey: lamp.localKey, ip: lamp.ip, version: "3.3", profileID: "rgbcct-bulb-v2")
            guard case .paired(let paired) = outcome else { throw DeadlineExceeded(what: "a paired lamp: \(outcome)") }
            _ = try await controller.send(.light(LightCommand(power: true)), to: paired.id)
            let newIP = try #require(LoopbackAddress(lamp.ip)?.advanced(by: 7)).description
            let announced = try Self.announcement(of: lamp, from: newIP)

            // The device announces itself from its new address before the old session is seen to drop.
            await controller.heard(announced)
            #expect(await controller.lanAddress(of: paired.id) == lamp.ip, "held while the session is up")
            _ = try await controller.send(.light(LightCommand(brightness: 30)), to: paired.id)
            await fleet.move(lamp.devId, to: newIP)
            let id = paired.id
            _ = try await events.first(within: 20, "the old session to drop") { event in
                if case .availabilityChanged(id, let status) = event { return status.availability != .online }
                return false
            }
            // Its next broadcast, the same as the first, is what moves the link, at once.
            await controller.heard(announced)
            #expect(await controller.lanAddress(of: paired.id) == newIP)
            _ = try await events.first(within: 20, "the lamp online at its new address") { event in
                if case .availabilityChanged(id, let status) = event { return status.availability == .online }
                return false
            }
            _ = try await controller.send(.light(LightCommand(brightness: 60)), to: paired.id)
            #expect(await fleet.address(of: lamp.devId) == newIP)
            // Proven there, the new address is saved: the next start goes straight to it.
            let store = await controller.store
            try await withDeadline(20, "the new address saved") {
                while try await store.loadDevices().first(where: { $0.device.id == id })?.lan?.ip != newIP {
                    try Task.checkCancellation()
                    await Task.yield()
                }
            }
        }
    }
}
