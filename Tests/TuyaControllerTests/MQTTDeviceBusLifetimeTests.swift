import MQTTLink
import Testing
import TuyaController

/// The bus's outbox is drained by a task that holds the MQTT client; a bus that is dropped
/// without `close()` must still let its client (and the client's network thread) go.
@Suite("MQTTDeviceBus lifetime")
struct MQTTDeviceBusLifetimeTests {
    @Test("a bus dropped without close releases its MQTT client")
    func droppedBusReleasesClient() async throws {
        weak var client: MQTTClient?
        do {
            let bus = try MQTTDeviceBus(configuration: MQTTConfiguration(url: "mqtt://127.0.0.1:1"))
            client = bus.client
            bus.send(topic: "smart/device/in/x", payload: [1])
        }
        // The drain task ends on its own once the outbox finishes; give it turns, not time.
        for _ in 0..<10_000 where client != nil { await Task.yield() }
        #expect(client == nil)
    }
}
