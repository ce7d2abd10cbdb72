import CMosquitto
import Timing
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The object libmosquitto's `void *userdata` points at (retained with `Unmanaged` while the
/// `mosquitto` handle lives). Its callbacks run on the network thread, so they only copy C data
/// into `LinkSignal`s and yield them; the streams are unbounded, so a yield never blocks that thread.
final class CallbackBox: Sendable {
    let signals: Mailbox<LinkSignal>.Continuation
    /// The client's events: a message received needs nothing of the client's state, so it goes
    /// to the client's consumer from here. Through the client's actor it woke one more thread
    /// of the pool on the way to the consumer, once per device report.
    let messages: Mailbox<MQTTEvent>.Continuation
    /// `MQTTConfiguration.maximumBufferedMessages`, and the messages dropped beyond it.
    let messageLimit: Int
    let droppedMessages = Atomic<Int>(0)
    /// Counts accepted CONNACKs, so the loop can tell an established session from a failed attempt.
    let sessions = Atomic<Int>(0)
    /// A CONNACK accepted and no disconnect since: set here, before the client's actor hears of
    /// either. A message kept by the broker for a persistent session comes in the same read as
    /// the CONNACK, and reaches the client's consumer before the client has handled that
    /// CONNACK: an answer to it must not be refused as "not connected".
    let live = Atomic<Bool>(false)
    /// Publishes someone waits for (`MQTTClient.publish`), counted up before each is handed to
    /// libmosquitto: while there are none, a PUBACK (or a QoS 0 write) is not signalled. The
    /// device links' frames (`forward`) are not waited for, and signalling each of their
    /// PUBACKs woke a thread of the pool for nothing, once per command.
    let awaitedPublishes = Atomic<Int>(0)

    init(signals: Mailbox<LinkSignal>.Continuation, messages: Mailbox<MQTTEvent>.Continuation, messageLimit: Int) {
        self.signals = signals
        self.messages = messages
        self.messageLimit = messageLimit
    }

    /// Registers the callbacks. `nonisolated` on purpose: a C callback formed in a main-actor
    /// context traps when libmosquitto calls it (INTEROP.md, "the trap"). The closures capture
    /// nothing; they find the box through `userdata`.
    nonisolated static func install(on mosq: OpaquePointer) {
        mosquitto_connect_callback_set(mosq) { _, userdata, code in
            let box = CallbackBox.from(userdata)
            if code == 0 {
                box.sessions.add(1, ordering: .releasing)
                box.live.store(true, ordering: .releasing)
                box.signals.yield(.connackAccepted)
            } else {
                box.signals.yield(.connackRefused(code: code))
            }
        }
        mosquitto_disconnect_callback_set(mosq) { _, userdata, code in
            let systemError = errno
            let box = CallbackBox.from(userdata)
            box.live.store(false, ordering: .releasing)
            box.signals.yield(.disconnected(code: code, systemError: systemError))
        }
        mosquitto_publish_callback_set(mosq) { _, userdata, mid in
            let box = CallbackBox.from(userdata)
            guard box.awaitedPublishes.load(ordering: .acquiring) > 0 else { return }
            box.signals.yield(.published(mid: mid))
        }
        mosquitto_subscribe_callback_set(mosq) { _, userdata, mid, count, granted in
            let levels =
                granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
            CallbackBox.from(userdata).signals.yield(.subscribed(mid: mid, granted: levels))
        }
        mosquitto_unsubscribe_callback_set(mosq) { _, userdata, mid in
            CallbackBox.from(userdata).signals.yield(.unsubscribed(mid: mid))
        }
        mosquitto_message_callback_set(mosq) { _, userdata, message in
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload: [UInt8] =
                if let bytes = message.payload, message.payloadlen > 0 {
                    Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
                } else {
                    []
                }
            let received = MQTTMessage(
                topic: String(cString: topic),
                payload: payload,
                qos: MQTTQoS(rawValue: message.qos) ?? .atLeastOnce,
                retain: message.retain
            )
            let box = CallbackBox.from(userdata)
            if !box.messages.yield(.message(received), buffering: box.messageLimit) {
                box.droppedMessages.add(1, ordering: .relaxed)
            }
        }
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> CallbackBox {
        // userdata is set once in mosquitto_new and released only after mosquitto_destroy.
        Unmanaged<CallbackBox>.fromOpaque(userdata!).takeUnretainedValue()
    }
}
