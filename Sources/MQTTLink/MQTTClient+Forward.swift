import CMosquitto

extension MQTTClient {
    /// Publishes at QoS 1 from the caller's thread and returns at once, with no hop to the
    /// client's actor and no word of the outcome: for a caller that sends one device's frames
    /// in order itself (a device link). Messages handed over one after another leave in that
    /// order. Dropped, as `publish` would fail them, before the first connection and after
    /// `close()`; kept by libmosquitto while reconnecting and sent after it.
    public nonisolated func forward(topic: String, payload: [UInt8]) {
        guard accepting.withLock({ $0 }) else { return }
        var mid: Int32 = 0
        let unwritten = loop.withMosquitto { mosq in
            _ = payload.withUnsafeBytes { bytes in
                mosquitto_publish(
                    mosq, &mid, topic, Int32(bytes.count), bytes.baseAddress, MQTTQoS.atLeastOnce.rawValue, false)
            }
            return mosquitto_want_write(mosq)
        }
        // As in `hand`: only bytes the socket did not take need the network thread.
        if unwritten == true { loop.wake() }
    }
}
