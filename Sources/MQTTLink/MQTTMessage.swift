/// A message received from the broker, copied out of libmosquitto's buffers on its network
/// thread so it can cross into async code.
public struct MQTTMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// True when the broker delivered a retained message (sent on subscribe, not live).
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}
