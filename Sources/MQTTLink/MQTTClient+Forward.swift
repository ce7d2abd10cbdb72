import CMosquitto

extension MQTTClient {
    /// Messages received while `configuration.maximumBufferedMessages` were waiting to be read,
    /// dropped (a flood on a subscribed topic, or a consumer that stopped reading).
    public nonisolated var droppedMessages: Int { loop.droppedMessages }

    /// Publishes at QoS 1 from the caller's thread and returns at once, with no hop to the
    /// client's actor and no word of the outcome: for a caller that sends one device's frames
    /// in order itself (a device link). Messages handed over one after another leave in that
    /// order. Dropped, as `publish` would fail them, before the first connection and after
    /// `close()`; kept by libmosquitto while reconnecting and sent after it. Sent once the
    /// CONNACK is in, even before the client has handled it: a device's report kept for the
    /// session may bring its link online and ask for a write at once.
    public nonisolated func forward(topic: String, payload: [UInt8]) {
        guard accepting.load(ordering: .acquiring) || loop.isSessionLive else { return }
        _ = handOver(topic: topic, payload: payload, qos: .atLeastOnce, retain: false)
    }

    /// Hands one message to libmosquitto under the loop's lock (`publish`'s and `forward`'s
    /// one way in): its result code (nil when the loop is stopping) and message id.
    ///
    /// Without `mosquitto_loop_start`, libmosquitto (2.0, `packet__queue`) writes the packet to
    /// the socket inside `mosquitto_publish`, except while a callback runs on the network
    /// thread, which writes what is queued once the callback returns (it looks at
    /// `mosquitto_want_write` after every read). Only bytes the socket did not take need the
    /// network thread now: a wake-up per message would cost it a poll round and two system
    /// calls for nothing.
    nonisolated func handOver(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) -> (rc: Int32?, mid: Int32) {
        var mid: Int32 = 0
        var unwritten = false
        let rc = loop.withMosquitto { mosq in
            let rc = payload.withUnsafeBytes { bytes in
                mosquitto_publish(mosq, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos.rawValue, retain)
            }
            unwritten = mosquitto_want_write(mosq)
            return rc
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue, unwritten { loop.wake() }
        return (rc, mid)
    }
}
