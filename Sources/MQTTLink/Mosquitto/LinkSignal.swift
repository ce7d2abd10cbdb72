/// What the network thread reports to `MQTTClient`, copied out of C memory so it is Sendable.
/// Produced by libmosquitto's callbacks and by `NetworkLoop` itself, in one ordered stream.
/// Messages received are not signals: they go to the client's events directly (`CallbackBox`).
enum LinkSignal: Sendable {
    /// CONNACK with return code 0.
    case connackAccepted
    /// CONNACK refusing the session (MQTT 3.1.1 codes 1–5).
    case connackRefused(code: Int32)
    /// A connect or reconnect attempt failed before any CONNACK (socket, DNS, timeout).
    case attemptFailed(MQTTError)
    /// The socket closed; `code` is libmosquitto's (0 after our DISCONNECT), `systemError` the
    /// errno at that moment.
    case disconnected(code: Int32, systemError: Int32)
    /// The next reconnect attempt is due after `delay`.
    case retryScheduled(after: Duration)
    /// QoS 0 written, or QoS 1 acknowledged by PUBACK.
    case published(mid: Int32)
    case subscribed(mid: Int32, granted: [Int32])
    case unsubscribed(mid: Int32)
}
