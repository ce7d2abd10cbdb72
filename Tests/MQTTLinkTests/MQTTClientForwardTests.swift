import Foundation
import Testing
import Timing

@testable import MQTTLink

/// `MQTTClient.forward`: a device link's frames handed to libmosquitto from the caller's
/// thread, at QoS 1, with no answer. Against a real mosquitto (TestBroker).
@Suite("MQTT client forward against a real mosquitto", .serialized, .timeLimit(.minutes(1)))
struct MQTTClientForwardTests {
    /// The messages `reader` hears up to `marker`'s.
    private func messages(_ reader: inout EventReader, until marker: String) async -> [MQTTMessage] {
        var heard: [MQTTMessage] = []
        while let event = await reader.next(where: { if case .message = $0 { true } else { false } }) {
            guard case .message(let message) = event else { continue }
            if message.topic == marker { break }
            heard.append(message)
        }
        return heard
    }

    @Test("frames forwarded back to back arrive once each, in order, at QoS 1; none before the first connect")
    func inOrder() async throws {
        let broker = try TestBroker()
        let gateway = try client(broker, "forward-gw")
        let device = try client(broker, "forward-dev")
        var heard = EventReader(device)
        try await device.connect()
        try await device.subscribe("smart/device/in/#")
        gateway.forward(topic: "smart/device/in/lamp", payload: [0xFF])
        try await gateway.connect()
        for index in 0..<200 { gateway.forward(topic: "smart/device/in/lamp", payload: [UInt8(index % 256), 1]) }
        try await gateway.publish(topic: "smart/device/in/marker", payload: [], qos: .atLeastOnce)
        let messages = await messages(&heard, until: "smart/device/in/marker")
        #expect(messages.map(\.payload) == (0..<200).map { [UInt8($0 % 256), 1] }, "\(messages.prefix(3))…")
        #expect(messages.allSatisfy { $0.qos == .atLeastOnce })
        await gateway.close()
        gateway.forward(topic: "smart/device/in/lamp", payload: [0xFE])
        await device.close()
    }

    @Test("a frame forwarded while the broker is down is sent once, after the reconnect")
    func duringOutage() async throws {
        let broker = try TestBroker()
        let gateway = try client(broker, "forward-outage", retryAfter: .seconds(30))
        let device = try client(broker, "forward-listener")
        var gatewayEvents = EventReader(gateway)
        var heard = EventReader(device)
        try await gateway.connect()
        broker.stop()
        _ = await gatewayEvents.disconnected()
        gateway.forward(topic: "smart/device/in/lamp", payload: [7])
        try await broker.restart()
        try await device.connect()
        try await device.subscribe("smart/device/in/#")
        await gateway.reconnectNow()
        #expect(await gatewayEvents.connected())
        try await gateway.publish(topic: "smart/device/in/marker", payload: [], qos: .atLeastOnce)
        #expect(await messages(&heard, until: "smart/device/in/marker").map(\.payload) == [[7]])
        await gateway.close()
        await device.close()
    }
}
