import YoullTestSupport
import DeviceSimulator
import Foundation
import Testing
import TuyaController
import TuyaCore

// Real parts: LocalBroker mosquitto, SimulatorFleet devices, TuyaController over MQTTDeviceBus.
@Suite("Commands over a real broker")
struct BrokerCommandTests {
    @Test("a command with several fields travels in one frame and returns the confirmed state")
    func severalFieldsInOneFrame() async throws {
        try await withBrokerRig { rig in
            let identity = rig.identity(0)
            let device = try await rig.pair(identity)
            let before = try #require(await rig.fleet.statistics(of: identity.devId))

            let state = try BrokerRig.light(
                await rig.controller.send(
                    .light(LightCommand(power: false, brightness: 70, colorTemperature: 3000, countdown: 90)),
                    to: device.id))
            #expect(state.power == false)
            #expect(state.brightness == 70)
            #expect(state.mode == "white")
            #expect(state.countdown == 90)
            let kelvin = try #require(state.colorTemperature)
            #expect(abs(kelvin - 3000) <= 10)

            let after = try #require(await rig.fleet.statistics(of: identity.devId))
            #expect(after.commandsApplied == before.commandsApplied + 1)
            #expect(await rig.simulated(identity, 20) == .bool(false))
            #expect(await rig.simulated(identity, 26) == .value(90))
            #expect(await rig.simulated(identity, 21) == .enumeration("white"))
            #expect(try await rig.light(device.id) == state)
        }
    }

    @Test("rapid writes to one DP coalesce and every caller gets the last value confirmed")
    func coalescing() async throws {
        try await withBrokerRig { rig in
            let identity = rig.identity(0)
            let device = try await rig.pair(identity)
            let before = try #require(await rig.fleet.statistics(of: identity.devId))
            let controller = rig.controller
            let values = Array(stride(from: 10, through: 100, by: 10))
            // Task.immediate runs each send up to its first hop onto the controller here, so
            // they reach the controller in this order: 100 is the last value written.
            var sends: [Task<DeviceState, any Error>] = []
            for value in values {
                sends.append(
                    Task.immediate { try await controller.send(.light(LightCommand(brightness: value)), to: device.id) }
                )
            }
            for send in sends {
                let state = try BrokerRig.light(await withDeadline(10, "a coalesced send") { try await send.value })
                #expect(state.brightness == 100)
            }
            let after = try #require(await rig.fleet.statistics(of: identity.devId))
            // The first write goes out at once and the rest wait out the 300 ms frame gap
            // together (two frames on an idle machine). On a loaded one a send can reach the
            // controller after a gap has passed, so the real-time bound here is only "fewer
            // frames than writes"; CommandQueueTests checks the exact coalescing on a test clock.
            #expect(after.commandsApplied - before.commandsApplied < values.count)
            #expect(await rig.simulated(identity, 22) == .value(1000))
            #expect(try await rig.light(device.id).brightness == 100)
        }
    }
}
