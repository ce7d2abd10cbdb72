import Synchronization

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
    /// Frames and connections counted by the bus, when it counts them.
    var statistics: DeviceBusStatistics? { get }
}

/// What the bus reports to the controller.
public enum DeviceBusEvent: Sendable, Hashable {
    /// The session is up and subscriptions are in place (also after a reconnect).
    case connected
    case disconnected
    case message(topic: String, payload: [UInt8])
}

extension DeviceBus {
    public var statistics: DeviceBusStatistics? { nil }
}

/// What crossed a device bus since start: device frames in and out, and connections made
/// (each reconnect is one more). Read by the gateway's health and metrics.
public final class DeviceBusStatistics: Sendable {
    public struct Snapshot: Hashable, Sendable {
        public var messagesIn: Int
        public var messagesOut: Int
        public var connections: Int

        public init(messagesIn: Int = 0, messagesOut: Int = 0, connections: Int = 0) {
            self.messagesIn = messagesIn
            self.messagesOut = messagesOut
            self.connections = connections
        }

        /// Connections after the first.
        public var reconnects: Int { max(0, connections - 1) }
    }

    private let counts = Mutex(Snapshot())

    public init() {}

    func received() { counts.withLock { $0.messagesIn += 1 } }
    func sent() { counts.withLock { $0.messagesOut += 1 } }
    func connected() { counts.withLock { $0.connections += 1 } }

    public var snapshot: Snapshot { counts.withLock { $0 } }
}
