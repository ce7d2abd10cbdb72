import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import Testing
import TuyaController
import TuyaCore

/// Real parts: a private mosquitto (LocalBroker), the DeviceSimulator fleet as the
/// devices, and TuyaController over MQTTDeviceBus as the gateway.
@Suite("TuyaController over a real broker")
struct BrokerSmokeTests {
    static let profiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("devices")

    @Test("a simulated light pairs over the broker and confirms a command")
    func pairAndCommand() async throws {
        let broker = try await LocalBroker.started()
        let library = ProfileLibrary.load(directories: [Self.profiles])
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 7), library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        defer { fleet.stop() }
        #expect(await fleet.waitUntilConnected(timeout: .seconds(10)))
        let light = try #require(fleet.identities.first)

        let bus = try MQTTDeviceBus(configuration: MQTTConfiguration(url: broker.url))
        let controller = TuyaController(bus: bus, library: library)
        try await controller.start()
        let outcome = try await controller.pair(devId: light.devId, localKey: light.localKey, name: "desk")
        guard case .paired(let device) = outcome else {
            Issue.record("expected paired, got \(outcome)")
            await controller.stop()
            return
        }
        #expect(device.profileID == "rgbcct-bulb-v2")
        let state = try await controller.send(.light(LightCommand(power: true, brightness: 40)), to: device.id)
        guard case .light(let lightState) = state else {
            Issue.record("expected a light state, got \(state)")
            await controller.stop()
            return
        }
        #expect(lightState.power == true)
        #expect(lightState.brightness == 40)
        let simulated = await fleet.state(of: light.devId)
        #expect(simulated?[DataPointID(20)!] == .bool(true))
        await controller.stop()
    }
}
