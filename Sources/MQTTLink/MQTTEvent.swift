/// What `MQTTClient.events` reports: connection state changes and received messages. Messages
/// come in the order libmosquitto received them, and those of a connection before its
/// `.disconnected`; a message the broker sends at once after a (re)connect, such as one kept
/// for a persistent session, may come before `.connected`.
public enum MQTTEvent: Sendable, Equatable {
    /// The session is up and every remembered subscription has been granted again (SUBACK),
    /// so a message published by anyone after this event reaches this client.
    case connected
    /// An established connection ended. The client reconnects on its own unless the reason is
    /// `.closedByClient`.
    case disconnected(MQTTDisconnectReason)
    /// One reconnect attempt failed; the next follows after `retryIn` (capped exponential backoff
    /// with jitter). A state, not a failure of any call.
    case reconnectFailed(MQTTError, retryIn: Duration)
    case message(MQTTMessage)
}

/// Why a connection ended.
public enum MQTTDisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// `close()` was called: DISCONNECT was sent, so the broker does not publish the last will.
    case closedByClient
    /// The socket failed or the broker went away; the last will (if any) is published.
    case connectionLost(MQTTError)

    public var description: String {
        switch self {
        case .closedByClient: "closed by the client"
        case .connectionLost(let error): "connection lost: \(error)"
        }
    }
}
