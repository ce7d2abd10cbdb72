import YoullTestSupport
import DeviceSimulator
import Foundation
import Testing
import TuyaController
import TuyaCore

// Real parts: LocalBroker mosquitto (SIGKILLed and restarted), SimulatorFleet devices, TuyaController over MQTTDeviceBus.
@Suite("A broker crash under load")
struct BrokerRestartTests {
    @Test("commands issued while the broker is down are each either applied after the restart or reported failed")
    func brokerKilledAndRestarted() async throws {
        try await withBrokerRig(
            lights: 3,
            configure: {
                // Queried often, but given seconds to answer: on a loaded machine a light that
                // missed its answers for 1 s was offline before the broker was even killed, and
                // the first command to it failed. The crash itself is seen at once (the
                // connection drops), not through these timeouts.
                $0.queryInterval = .milliseconds(250)
                $0.answerTimeout = .seconds(1)
                $0.offlineAfter = .seconds(5)
                $0.confirmationTimeout = .seconds(3)
            }
        ) { rig in
            let identities = rig.fleet.identities
            var devices: [TuyaDevice] = []
            for identity in identities { devices.append(try await rig.pair(identity)) }
            for device in devices {
                try await rig.controller.send(.light(LightCommand(power: true, countdown: 1)), to: device.id)
            }
            let controller = rig.controller
            let events = controller.events()

            // Each command writes only the countdown DP, with a value of its own.
            struct Issued: Sendable {
                var light: Int
                var countdown: Int
                var task: Task<DeviceState, any Error>
            }
            func issue(_ countdown: Int, to light: Int) -> Issued {
                let id = devices[light].id
                return Issued(
                    light: light, countdown: countdown,
                    task: Task { try await controller.send(.light(LightCommand(countdown: countdown)), to: id) })
            }

            rig.broker.stop()
            // Some commands before the controller has noticed the crash...
            var issued = devices.indices.map { issue(100 + $0, to: $0) }
            let ids = Set(devices.map(\.id))
            // Under load the answer timeout can run out before the client notices the
            // dead connection ("no answer for 5 s"); the broker loss must still be what each
            // light ends up blaming.
            let allBlameBroker = try await withDeadline(30, "every light offline, blaming the broker") {
                var blamingBroker: Set<DeviceID> = []
                for await event in events {
                    if case .availabilityChanged(let id, let status) = event {
                        if status.availability == .offline, status.hint == "broker connection lost" {
                            blamingBroker.insert(id)
                        } else {
                            blamingBroker.remove(id)
                        }
                    }
                    if blamingBroker == ids { return true }
                }
                return false
            }
            #expect(allBlameBroker)
            // ...and some after, while it holds them.
            issued += devices.indices.map { issue(200 + $0, to: $0) }
            try await rig.broker.restart()

            var applied = 0
            for command in issued {
                let result = try await withDeadline(10, "the outcome of countdown \(command.countdown)") {
                    await command.task.result
                }
                switch result {
                case .success(let state):
                    // A write coalesces with a later one to the same DP and is confirmed with it.
                    let last = 200 + command.light
                    #expect([command.countdown, last].contains(try BrokerRig.light(state).countdown ?? -1))
                    applied += 1
                case .failure(let error):
                    #expect(error is ControllerError, "countdown \(command.countdown) failed with \(error)")
                }
            }
            // A confirmed last write is what the device holds.
            for command in issued.suffix(devices.count) {
                if case .success = await command.task.result {
                    #expect(await rig.simulated(identities[command.light], 26) == .value(Int32(command.countdown)))
                }
            }
            #expect(applied > 0, "no command survived the restart")

            // Both sides are subscribed again: a fresh command confirms on every light.
            for (index, device) in devices.enumerated() {
                let state = try await rig.controller.send(.light(LightCommand(countdown: 300 + index)), to: device.id)
                #expect(try BrokerRig.light(state).countdown == 300 + index)
                #expect(await rig.simulated(identities[index], 26) == .value(Int32(300 + index)))
            }
        }
    }
}
