import YoullTestSupport
import DeviceSimulator
import Foundation
import Testing
import TuyaController
import TuyaCore

// Real parts: LocalBroker mosquitto, SimulatorFleet devices, TuyaController over MQTTDeviceBus.
@Suite("Pairing over a real broker")
struct BrokerPairingTests {
    @Test("a light pairs by its DP ids and a diffuser by its product id, and pairing again says already paired")
    func pairsLightAndDiffuser() async throws {
        try await withBrokerRig(lights: 1, diffusers: 2) { rig in
            let light = try await rig.pair(rig.identity(0))
            #expect(light.profileID == "rgbcct-bulb-v2")
            #expect(light.category == .light)
            let byProduct = try await rig.pair(rig.identity(1), productID: "rvajlvjh4qoj1lkn")
            #expect(byProduct.profileID == "aroma-diffuser-modern")
            #expect(byProduct.productID == "rvajlvjh4qoj1lkn")
            let byDPs = try await rig.pair(rig.identity(2))
            #expect(byDPs.profileID == "aroma-diffuser-modern")
            #expect(await rig.controller.devices().count == 3)
            #expect(await rig.controller.status(of: light.id)?.availability == .online)

            let again = rig.identity(0)
            #expect(try await rig.controller.pair(devId: again.devId, localKey: again.localKey) == .alreadyPaired)
            #expect(await rig.controller.devices().count == 3)
        }
    }

    @Test("a device that answers with another key gives wrongKey and is not paired")
    func deviceAnswersWithAnotherKey() async throws {
        try await withBrokerRig { rig in
            let light = rig.identity(0)
            await rig.fleet.setMisbehaviour(Misbehaviour(wrongKey: "ZYXWVUTSRQPONMLK"), for: light.devId)
            let outcome = try await rig.controller.pair(devId: light.devId, localKey: light.localKey)
            #expect(outcome == .wrongKey)
            #expect(await rig.controller.devices().isEmpty)
        }
    }

    @Test("pairing with a wrong local key gives wrongKey once the device reports")
    func wrongLocalKey() async throws {
        try await withBrokerRig { rig in
            let light = rig.identity(0)
            let ignoredBefore = try #require(await rig.fleet.statistics(of: light.devId)).framesIgnored
            let controller = rig.controller
            let pairing = Task { try await controller.pair(devId: light.devId, localKey: "0123456789abcdef") }
            // The device cannot read the pairing query (wrong key), so it stays silent until it
            // reports on its own: here it reconnects, and a device reports everything on connect.
            #expect(
                await rig.fleet.waitUntil(light.devId, timeout: .seconds(20)) {
                    $0.statistics.framesIgnored > ignoredBefore
                })
            await rig.fleet.goOffline(light.devId)
            await rig.fleet.comeOnline(light.devId)
            #expect(try await withDeadline(20, "the wrong-key outcome") { try await pairing.value } == .wrongKey)
            #expect(await rig.controller.devices().isEmpty)
        }
    }

    @Test("a devId nobody serves gives noAnswer at the pairing deadline")
    func noAnswer() async throws {
        try await withBrokerRig(configure: { $0.pairingTimeout = .milliseconds(300) }) { rig in
            let outcome = try await withDeadline(20, "noAnswer") {
                try await rig.controller.pair(devId: "bfnobodyservesthis0000", localKey: "0123456789abcdef")
            }
            #expect(outcome == .noAnswer)
            #expect(await rig.controller.devices().isEmpty)
        }
    }

    @Test("a device whose DPs fit no loaded profile gives unknownProduct listing the DPs it reported")
    func unknownProduct() async throws {
        let withoutLights = ProfileLibrary(profiles: BrokerRig.library.all.filter { $0.category != .light })
        try await withBrokerRig(controllerLibrary: withoutLights) { rig in
            let light = rig.identity(0)
            let outcome = try await rig.controller.pair(devId: light.devId, localKey: light.localKey)
            #expect(outcome == .unknownProduct(dpsSeen: (20...26).map { DataPointID($0)! }))
            #expect(await rig.controller.devices().isEmpty)
        }
    }

    @Test("importing the fleet's devices.json pairs every simulated device with its profile")
    func importTinyTuya() async throws {
        try await withBrokerRig(lights: 2, diffusers: 2) { rig in
            let results = try await rig.controller.importTinyTuya(devicesJSON: Array(rig.fleet.devicesJSON().utf8))
            #expect(results.count == 4)
            for ((entry, outcome), identity) in zip(results, rig.fleet.identities) {
                #expect(entry.id.rawValue == identity.devId)
                #expect(outcome.pairedProfileID == identity.profile.id, "\(entry): \(outcome)")
            }
            #expect(await rig.controller.devices().map(\.name).sorted() == rig.fleet.identities.map(\.name).sorted())
        }
    }
}
