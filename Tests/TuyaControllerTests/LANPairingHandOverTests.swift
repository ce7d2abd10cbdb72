import DeviceSimulator
import Synchronization
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// The moment after a LAN pairing: the pairing probe's connection must be gone, on the
/// device too, before the registered link connects, since a device holds one client and
/// refuses a second ("busy"). Real parts: a simulated LAN device on TCP 6668 of its own
/// loopback address (it refuses a second connection, as firmware does), the controller
/// over real TCP on the real clock.
@Suite("A LAN device right after pairing", .serialized, .timeLimit(.minutes(2)))
struct LANPairingHandOverTests {
    @Test(
        "a command sent the moment pairing returns is confirmed, and the device never refuses the link's connection",
        arguments: [LANProtocolVersion.v3_3, .v3_4, .v3_5])
    func commandRightAfterPairing(version: LANProtocolVersion) async throws {
        let options = try LANSimulatorOptions.oneLight(version)
        try await withLANFleet(options, library: Repository.shippedProfiles) { fleet, controller in
            let lamp = try #require(fleet.identities.first)
            let id = try #require(DeviceID(lamp.devId))
            let busy = Mutex<[String]>([])
            let events = controller.events()
            let watcher = Task {
                for await event in events {
                    if case .availabilityChanged(_, let status) = event, status.availability == .busy {
                        busy.withLock { $0.append(status.hint ?? "") }
                    }
                }
            }
            defer { watcher.cancel() }
            try await controller.start()
            // Pair, command at once, remove: several rounds, as a user pairing devices one
            // after another would.
            for round in 1...5 {
                let outcome = try await controller.pairLAN(
                    devId: lamp.devId, localKey: lamp.localKey, ip: lamp.ip, version: version.rawValue, name: "lamp")
                guard case .paired = outcome else {
                    Issue.record("\(version) round \(round): \(outcome)")
                    break
                }
                let on = round % 2 == 1
                let state = try await controller.send(.light(LightCommand(power: on)), to: id)
                guard case .light(let light) = state else { throw DeadlineExceeded(what: "a light's state") }
                #expect(light.power == on, "\(version) round \(round): confirmed by the device")
                try await controller.remove(id)
            }
            #expect(busy.withLock { $0 }.isEmpty, "\(version): the link was refused as busy after pairing")
            #expect(await fleet.lanStatistics(of: lamp.devId)?.connectionsRefused == 0, "\(version)")
        }
    }
}
