import MQTTLink

/// What `doctor` saw on the broker: whether it let us in, whether a message went round under
/// the base topic, and what is retained on `<base>/bridge/state`.
public struct BrokerObservation: Equatable, Sendable {
    public enum Connection: Equatable, Sendable {
        case connected
        case failed(MQTTError)
        /// Neither CONNACK nor an error within the time allowed.
        case noAnswer(Duration)
    }

    /// A message published to `<base>/bridge/doctor/<random>` while subscribed to it.
    public enum RoundTrip: Equatable, Sendable {
        case passed
        /// The subscription or the publish was refused or failed.
        case failed(MQTTError)
        /// Published, but it did not come back in time: brokers drop publishes their ACL denies
        /// without telling an MQTT 3.1.1 client.
        case noEcho(Duration)
    }

    /// `<base>/bridge/state`, read by subscribing to its retained message.
    public enum BridgeState: Equatable, Sendable {
        case retained([UInt8])
        case nothingRetained
        case unreadable(MQTTError)
    }

    public var connection: Connection
    /// nil when not connected.
    public var roundTrip: RoundTrip?
    public var bridgeState: BridgeState?

    public init(connection: Connection, roundTrip: RoundTrip? = nil, bridgeState: BridgeState? = nil) {
        self.connection = connection
        self.roundTrip = roundTrip
        self.bridgeState = bridgeState
    }
}
