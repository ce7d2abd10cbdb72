import CMosquitto

/// What a peer may do from inside a swarm callback: publish, go offline or online, read
/// the time. Valid only on the swarm thread, for the duration of the callback or
/// `perform` body that handed it out; it is deliberately not Sendable.
public struct SwarmContext {
    let engine: SwarmEngine
    /// The peer's index in the swarm, as `SwarmEngine.add` returned it.
    public let client: Int
    public let now: ContinuousClock.Instant

    public var isConnected: Bool { engine.clients[client].isConnected }

    /// Publishes with QoS 1 (Tuya devices and the cloud use QoS 1, protocol/TUYA.md §3.1).
    /// Returns false, and sends nothing, while disconnected: libmosquitto would otherwise
    /// keep the message and send it after the reconnect (INTEROP.md), which a device that
    /// was offline never does.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32 = 1) -> Bool {
        engine.clients[client].publish(topic: topic, payload: payload, qos: qos)
    }

    /// Offline: disconnect now and stay away. Online: connect again at once.
    public func setOnline(_ online: Bool) {
        engine.clients[client].setOnline(online, now: now)
    }
}
