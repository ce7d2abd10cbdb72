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
    /// Hands a frame over at QoS 1 without waiting for it to leave: frames sent one after
    /// another (by any caller) leave in that order, and a failure is not reported (nor may it
    /// be retried). For the device links, which learn the outcome from the device's report.
    func send(topic: String, payload: [UInt8])
    func subscribe(_ topic: String) async throws
    /// The bus's events, for a single consumer (the controller).
    func busEvents() -> any AsyncSequence<DeviceBusEvent, Never> & Sendable
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

/// What crossed a device bus since start: device frames in and out, connections made
/// (each reconnect is one more), and device frames refused as replayed or stale, by reason.
/// Read by the gateway's health and metrics.
public final class DeviceBusStatistics: Sendable {
    public struct Snapshot: Hashable, Sendable {
        public var messagesIn: Int
        public var messagesOut: Int
        public var connections: Int
        /// Frames refused by reason: `time_outside_window`, `time_went_back`,
        /// `sequence_went_back` (see `FrameFreshness`), `older_than_command`, and `buffer_full`
        /// (dropped unread: more arrived than the gateway reads).
        public var rejectedFrames: [String: Int]

        public init(
            messagesIn: Int = 0, messagesOut: Int = 0, connections: Int = 0, rejectedFrames: [String: Int] = [:]
        ) {
            self.messagesIn = messagesIn
            self.messagesOut = messagesOut
            self.connections = connections
            self.rejectedFrames = rejectedFrames
        }

        /// Connections after the first.
        public var reconnects: Int { max(0, connections - 1) }
    }

    private let counts = Mutex(Snapshot())
    /// Frames the bus dropped before anyone read them (`buffer_full`).
    private let dropped: @Sendable () -> Int

    public init(dropped: @escaping @Sendable () -> Int = { 0 }) {
        self.dropped = dropped
    }

    func received() { counts.withLock { $0.messagesIn += 1 } }
    func sent() { counts.withLock { $0.messagesOut += 1 } }
    func connected() { counts.withLock { $0.connections += 1 } }
    func rejected(_ reason: String) { counts.withLock { $0.rejectedFrames[reason, default: 0] += 1 } }

    /// Every reason a device frame may be refused for, as the metrics label them.
    public static let rejectionReasons =
        FrameFreshness.Rejection.allCases.map(\.rawValue) + [olderThanCommand, bufferFull]
    /// A report emitted before the last command the gateway sent (`DeviceLinkCore`).
    static let olderThanCommand = "older_than_command"
    /// Dropped unread: frames arrived faster than the gateway read them.
    public static let bufferFull = "buffer_full"

    public var snapshot: Snapshot {
        var snapshot = counts.withLock { $0 }
        let dropped = dropped()
        if dropped > 0 { snapshot.rejectedFrames[Self.bufferFull] = dropped }
        return snapshot
    }
}
