import Logging
import MQTTLink
import Storage
import Synchronization
import TuyaCore
import TuyaWire

/// What the gateway says on its bridge API, from whichever part says it: the request
/// router, the maintenance service and the timer each get this publisher in their `init`.
/// Every message goes through one serial `BridgeOutbox`, so messages leave in the order
/// they were decided; events are also appended to the database's event log.
///
/// It keeps the one retained topic that belongs to another part, the timer's
/// `bridge/session`, so the router can republish it after every connection.
public final class BridgePublisher: Sendable {
    public let topics: BridgeTopics
    let outbox: BridgeOutbox
    let metrics: GatewayMetrics
    private let database: GatewayDatabase
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var messagesOut = 0
        var sessionStatus: JSONValue?
    }

    /// - Parameters:
    ///   - client: the bridge's own broker connection (the one with the `offline` last will).
    ///   - metrics: counts every message published.
    public init(
        topics: BridgeTopics, client: MQTTClient, database: GatewayDatabase, metrics: GatewayMetrics, logger: Logger
    ) {
        self.topics = topics
        outbox = BridgeOutbox(client: client, logger: logger)
        self.database = database
        self.metrics = metrics
        self.logger = logger
    }

    /// Messages handed to the outbox since the start (`bridge/health`).
    var messagesOut: Int { state.withLock { $0.messagesOut } }

    /// The last `bridge/session` published; nil before the timer said anything.
    var sessionStatus: JSONValue? { state.withLock { $0.sessionStatus } }

    /// Publishes `value` as compact JSON on `topic`.
    func publish(_ topic: String, _ value: JSONValue, retain: Bool = false) {
        send(topic, CompactJSON.encode(value), retain: retain)
    }

    /// Publishes bytes as they are (Home Assistant's discovery configs, already encoded).
    func send(_ topic: String, _ payload: [UInt8], retain: Bool) {
        state.withLock { send(topic, payload, retain: retain, counting: &$0) }
    }

    /// Hands one message to the outbox while the state is locked, so what is kept and what
    /// is sent cannot pass each other.
    private func send(_ topic: String, _ payload: [UInt8], retain: Bool, counting state: inout State) {
        state.messagesOut += 1
        metrics.messagesOut.increment()
        outbox.send(topic: topic, payload: payload, retain: retain)
    }

    /// Clears a retained topic (an empty retained payload), e.g. after a rename or removal.
    func clearRetained(_ topic: String) {
        send(topic, [], retain: true)
    }

    /// Publishes on `bridge/event` and appends the event to the database's log.
    func emit(_ type: String, device: DeviceID? = nil, _ data: [String: JSONValue]) async {
        publish(topics.event, BridgeJSON.value(BridgeEventPayload(type: type, data: data)))
        do {
            _ = try await database.appendEvent(type, device: device, detail: .object(data))
        } catch {
            logger.warning("could not record the \(type) event: \(error)")
        }
    }

    /// Publishes the timer's status on the retained `bridge/session` and keeps it for the
    /// republish after a reconnect.
    func publishSessionStatus(_ status: JSONValue) {
        let payload = CompactJSON.encode(status)
        state.withLock { state in
            state.sessionStatus = status
            send(topics.session, payload, retain: true, counting: &state)
        }
    }

    /// Sends the kept `bridge/session` again (after a reconnect); nothing before the timer spoke.
    func republishSessionStatus() {
        state.withLock { state in
            guard let status = state.sessionStatus else { return }
            send(topics.session, CompactJSON.encode(status), retain: true, counting: &state)
        }
    }
}
