import MQTTLink
import Timing

/// The device bus over a real broker: one `MQTTClient` (libmosquitto) for every Wi-Fi
/// device. Publishes at QoS 1 and never retries (INTEROP.md: a publish made while
/// disconnected is still sent by libmosquitto after the reconnect, so a retry would
/// duplicate it); subscriptions are restored by the client after every reconnect, and
/// `.connected` is reported only once they are granted again.
///
/// Device links' frames are handed to libmosquitto by the link itself (`MQTTClient.forward`,
/// from the link's thread): not through a task per device (1,000 devices held 1,000 tasks and
/// streams), nor through one outbox drained by a task (a wake-up of another thread for every
/// frame, on the path of every command's round trip).
public struct MQTTDeviceBus: DeviceBus {
    public let client: MQTTClient
    public let statistics: DeviceBusStatistics?

    public init(configuration: MQTTConfiguration) throws(MQTTError) {
        let client = try MQTTClient(configuration: configuration)
        self.client = client
        statistics = DeviceBusStatistics(dropped: { client.droppedMessages })
    }

    public func connect() async throws {
        try await client.connect()
    }

    public func publish(topic: String, payload: [UInt8]) async throws {
        try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: false)
        statistics?.sent()
    }

    public func send(topic: String, payload: [UInt8]) {
        client.forward(topic: topic, payload: payload)
        statistics?.sent()
    }

    public func subscribe(_ topic: String) async throws {
        try await client.subscribe(topic, qos: .atLeastOnce)
    }

    /// The client's events as bus events. The client has one event stream, so the bus has
    /// one consumer: the controller. Mapped where the controller iterates them, not through
    /// a task and a second stream: every device report would otherwise wake one more task.
    public func busEvents() -> any AsyncSequence<DeviceBusEvent, Never> & Sendable {
        let statistics = statistics
        return client.events.compactMap { @Sendable event -> DeviceBusEvent? in
            switch event {
            case .connected:
                statistics?.connected()
                return .connected
            case .disconnected: return .disconnected
            case .message(let message):
                statistics?.received()
                return .message(topic: message.topic, payload: message.payload)
            case .reconnectFailed: return nil
            }
        }
    }

    public func close() async {
        await client.close()
    }
}
