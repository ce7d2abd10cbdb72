/// The delivery guarantees the gateway uses. QoS 2 is left out on purpose: Tuya devices speak
/// QoS 0 and 1 only, and a QoS 1 PUBACK already says all the broker can say (INTEROP.md:
/// "a PUBACK is not delivery", only the device's own report confirms a command).
public enum MQTTQoS: Int32, Sendable, Hashable, CaseIterable {
    /// Fire and forget: `publish` completes once the packet is written to the socket.
    case atMostOnce = 0
    /// Acknowledged: `publish` completes when the broker's PUBACK arrives.
    case atLeastOnce = 1
}
