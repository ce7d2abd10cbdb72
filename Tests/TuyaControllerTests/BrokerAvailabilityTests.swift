import YoullTestSupport
import DeviceSimulator
import Foundation
import Testing
import TuyaController
import TuyaCore

// Real parts: LocalBroker mosquitto, SimulatorFleet devices, TuyaController over MQTTDeviceBus.
@Suite("Availability over a real broker")
struct BrokerAvailabilityTests {
    @Test("a device that leaves goes offline, and when it returns the state set meanwhile is re-applied")
    func offlineAndReconciliation() async throws {
        try await withBrokerRig(configure: {
            // Tolerant of a loaded machine: a late answer must not flap the device back online.
            $0.queryInterval = .milliseconds(300)
            $0.answerTimeout = .milliseconds(300)
            $0.offlineAfter = .seconds(1)
            // A confirmation on a loaded machine (2 cores, a parallel build) can take over a second.
            $0.confirmationTimeout = .seconds(3)
        }) { rig in
            let identity = rig.identity(0)
            let device = try await rig.pair(identity)
            try await rig.controller.send(.light(LightCommand(power: true, brightness: 50)), to: device.id)

            let events = rig.controller.events()
            await rig.fleet.goOffline(identity.devId)
            // On a loaded machine an answer can be late enough for an offline before the
            // device left, undone by that answer: the offline that counts is the one that stays.
            var offline = try await events.availability(.offline, of: device.id)
            for _ in 0..<3 where await rig.controller.status(of: device.id)?.availability != .offline {
                offline = try await events.availability(.offline, of: device.id)
            }
            #expect(offline.hint != nil)
            #expect(await rig.controller.status(of: device.id)?.availability == .offline)

            // Nobody hears the command: it fails, but stays what the user wants.
            await #expect(throws: ControllerError.self) {
                try await rig.controller.send(.light(LightCommand(power: false, countdown: 600)), to: device.id)
            }
            #expect(await rig.simulated(identity, 20) == .bool(true))

            await rig.fleet.comeOnline(identity.devId)
            _ = try await events.availability(.online, of: device.id)
            _ = try await events.first(within: 30, "the re-applied state") { event in
                guard case .stateChanged(device.id, .light(let light)) = event else { return false }
                return light.power == false && light.countdown == 600
            }
            #expect(await rig.simulated(identity, 20) == .bool(false))
            #expect(await rig.simulated(identity, 26) == .value(600))
            #expect(try await rig.light(device.id).brightness == 50)
        }
    }

    @Test("a device reporting under another key is auth_failed with a key hint and never offline")
    func authFailedNotOffline() async throws {
        try await withBrokerRig(configure: {
            // Answers late by a few seconds on a loaded machine (a parallel build on 2 cores)
            // must not count as silence: offline only after 3.5 s without a frame.
            $0.queryInterval = .milliseconds(500)
            $0.answerTimeout = .milliseconds(500)
            $0.offlineAfter = .milliseconds(3500)
        }) { rig in
            let identity = rig.identity(0)
            let device = try await rig.pair(identity)
            let events = rig.controller.events()
            let answered = try #require(await rig.fleet.statistics(of: identity.devId)).queriesAnswered

            await rig.fleet.setMisbehaviour(Misbehaviour(wrongKey: "ZYXWVUTSRQPONMLK"), for: identity.devId)
            let failed = try await events.availability(.authFailed, of: device.id)
            #expect(failed.hint == "local key mismatch")
            // Many more queries than it takes to go offline, each answered under the wrong key.
            #expect(
                await rig.fleet.waitUntil(identity.devId, timeout: .seconds(30)) {
                    $0.statistics.queriesAnswered >= answered + 8
                })
            #expect(await rig.controller.status(of: device.id)?.availability == .authFailed)
            let seen = rig.log.availability(of: device.id).map(\.availability)
            #expect(!seen.contains(.offline), "availability went \(seen)")

            await rig.fleet.setMisbehaviour(Misbehaviour(), for: identity.devId)
            _ = try await events.availability(.online, of: device.id)
        }
    }
}
