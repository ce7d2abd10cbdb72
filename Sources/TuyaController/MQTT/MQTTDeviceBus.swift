import MQTTLink

/// The device bus over a real broker: one `MQTTClient` (libmosquitto) for every Wi-Fi
/// device. Publishes at QoS 1 and never retries (INTEROP.md: a publish made while
/// disconnected is still sent by libmosquitto after the reconnect, so a retry would
/// duplicate it); subscriptions are restored by the client after every reconnect, and
/// `.connected` is reported only once they are granted again.
public struct MQTTDeviceBus: DeviceBus {
    public let client: MQTTClient
    public let statistics: DeviceBusStatistics?

    public init(configuration: MQTTConfiguration) throws(MQTTError) {
        client = try MQTTClient(configuration: configuration)
        statistics = DeviceBusStatistics()
    }

    public func connect() async throws {
        try await client.connect()
    }

    public func publish(topic: String, payload: [UInt8]) async throws {
        try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: false)
        statistics?.sent()
    }

    public func subscribe(_ topic: String) async throws {
        try await client.subscribe(topic, qos: .atLeastOnce)
    }

    /// The client's events as bus events. The client has one event stream, so the bus has
    /// one consumer: the controller.
    public func busEvents() -> AsyncStream<DeviceBusEvent> {
        let source = client.events
        let statistics = statistics
        return AsyncStream { continuation in
            let task = Task {
                for await event in source {
                    switch event {
                    case .connected:
                        statistics?.connected()
                        continuation.yield(.connected)
                    case .disconnected: continuation.yield(.disconnected)
                    case .message(let message):
                        statistics?.received()
                        continuation.yield(.message(topic: message.topic, payload: message.payload))
                    case .reconnectFailed: continue
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func close() async {
        await client.close()
    }
}
