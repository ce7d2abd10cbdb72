/// The broker connection as the controller uses it: one subscription to every device's
/// `out` topic, QoS 1 publishes to each device's `in` topic, and connection events.
/// `MQTTClient` is the real one; tests may substitute an in-memory bus.
public protocol DeviceBus: Sendable {
    /// Connects and waits until the session is up.
    func connect() async throws
    /// Publishes at QoS 1. Must not be retried by the caller on failure: a client may have
    /// queued it already (INTEROP.md, MOSQ_ERR_NO_CONN).
    func publish(topic: String, payload: [UInt8]) async throws
    func subscribe(_ topic: String) async throws
    /// The bus's events, for a single consumer (the controller).
    func busEvents() -> AsyncStream<DeviceBusEvent>
    func close() async
}

/// What the bus reports to the controller.
public enum DeviceBusEvent: Sendable, Hashable {
    /// The session is up and subscriptions are in place (also after a reconnect).
    case connected
    case disconnected
    case message(topic: String, payload: [UInt8])
}
