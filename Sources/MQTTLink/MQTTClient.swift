import CMosquitto
import Synchronization
import Timing

/// An MQTT 3.1.1 client over libmosquitto for the gateway's broker connection.
///
/// - `connect()` makes one attempt and throws a typed `MQTTError` (refused, not authorised, TLS,
///   host not found, timeout). Once a session has been established the client reconnects
///   forever with `Backoff`, re-subscribes everything it was asked to subscribe, and
///   reports each state change on `events`.
/// - Publishing while disconnected: libmosquitto answers MOSQ_ERR_NO_CONN yet keeps a QoS 1
///   message and sends it after reconnecting (INTEROP.md), so we never retry: a QoS 1 `publish`
///   made after the first connect simply stays pending until its PUBACK, possibly after a
///   reconnect, and fails only on `close()`. QoS 0 while disconnected throws `notConnected`;
///   nothing is queued. Before the first successful `connect()` every publish throws
///   `notConnected` without touching libmosquitto.
/// - Call `close()` when done: it disconnects (the broker discards the last will), stops the
///   network thread, destroys the handle and finishes `events`. Dropping an unclosed client
///   does the same in the background.
public actor MQTTClient {
    /// Connection state changes and received messages. One consumer; finishes after `close()`.
    /// A message is yielded by the network thread as it arrives, a connection change once the
    /// client has handled it (after the subscriptions are granted again, for `.connected`): a
    /// message sent by the broker at once after a reconnect may come before `.connected`.
    public nonisolated let events: Mailbox<MQTTEvent>
    public nonisolated let configuration: MQTTConfiguration

    private enum Phase {
        /// No connection and none wanted (before `connect()`, after a failed first attempt).
        case idle
        /// The first attempt is under way; `connect()` callers wait for it.
        case connecting
        /// CONNACK accepted (subscriptions may still be being restored).
        case connected
        /// A session existed and was lost; the network thread is retrying.
        case reconnecting
    }

    private let eventSink: Mailbox<MQTTEvent>.Continuation
    let loop: NetworkLoop
    private var phase = Phase.idle {
        didSet { updateAccepting() }
    }
    private var closing = false {
        didSet { updateAccepting() }
    }
    /// Whether `forward` may hand a message to libmosquitto: what `hand` checks for QoS 1,
    /// kept where a caller off the actor can read it.
    nonisolated let accepting = Atomic<Bool>(false)
    private var loopFinished = false
    private var announced = false
    private var lastAttemptError: MQTTError?
    private var connectWaiters: [CheckedContinuation<Void, any Error>] = []
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    private var publishWaiters: [Int32: (qos: MQTTQoS, waiter: PublishWaiter)] = [:]
    /// Every topic asked for and not unsubscribed: restored after each reconnect.
    private var subscriptions: [String: MQTTQoS] = [:]
    private var subscribeWaiters: [String: [CheckedContinuation<Void, any Error>]] = [:]
    private var subscribeMids: [Int32: String] = [:]
    private var restoring: Set<Int32> = []
    private var unsubscribeWaiters: [Int32: CheckedContinuation<Void, any Error>] = [:]

    /// Validates and applies the configuration (TLS files are read here) and starts the idle
    /// network thread; nothing is dialled before `connect()`. `clock` times the reconnect
    /// backoff and the CONNACK deadline.
    public init(configuration: MQTTConfiguration, clock: any Clock<Duration> = ContinuousClock()) throws(MQTTError) {
        self.configuration = configuration
        (events, eventSink) = Mailbox.make(of: MQTTEvent.self)
        let (signals, signalSink) = Mailbox.make(of: LinkSignal.self)
        loop = try NetworkLoop(
            configuration: configuration, clock: OffsetClock(clock), signals: signalSink, messages: eventSink)
        loop.start()
        // The single consumer: hands signals to the actor in the C thread's order, the first
        // of a run from here and the rest of it on the actor (one hop per run, not per
        // signal). Holds the client only while handing over, so dropping it still ends it.
        Task { [weak self] in
            for await signal in signals {
                await self?.handle(signal, thenBufferedFrom: signals)
            }
            await self?.networkThreadEnded()
        }
    }

    deinit {
        loop.stop()
    }

    /// Connects and waits for CONNACK (and for remembered subscriptions to be restored).
    /// Returns at once when already connected; while reconnecting, waits for the reconnect.
    public func connect() async throws {
        guard !closing else { throw MQTTError.closed }
        switch phase {
        case .connected where restoring.isEmpty && announced:
            return
        case .idle:
            phase = .connecting
            loop.requestConnect()
        case .connecting, .connected, .reconnecting:
            break
        }
        try await withCheckedThrowingContinuation { connectWaiters.append($0) }
    }

    /// Skips the remaining reconnect delay, e.g. when the network is known to be back.
    public func reconnectNow() {
        guard !closing else { return }
        loop.reconnectNow()
    }

    /// Drops the TCP connection without DISCONNECT, as a network failure would (the broker
    /// publishes the last will; the client reconnects). For tests.
    func simulateNetworkFailure() {
        guard !closing else { return }
        loop.breakConnection()
    }

    /// Publishes and returns when QoS 0 is written to the socket or QoS 1 is acknowledged
    /// (PUBACK). See the type's comment for what happens while disconnected.
    public func publish(
        topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false
    ) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            hand(topic: topic, payload: payload, qos: qos, retain: retain, to: .caller(waiter))
        }
    }

    /// Hands the message to libmosquitto and returns at once, without waiting for the
    /// broker: messages sent one after another leave in that order. The receipt says when
    /// (and whether) `publish` would have returned.
    public func send(
        topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false
    ) -> PublishReceipt {
        let receipt = PublishReceipt()
        hand(topic: topic, payload: payload, qos: qos, retain: retain, to: .receipt(receipt))
        return receipt
    }

    /// Keeps `accepting` in step with `phase` and `closing` (their `didSet`).
    private func updateAccepting() {
        let accepting = !closing && (phase == .connected || phase == .reconnecting)
        self.accepting.store(accepting, ordering: .releasing)
    }

    private func hand(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool, to waiter: PublishWaiter) {
        guard !closing else { return waiter.resume(throwing: MQTTError.closed) }
        switch (phase, qos) {
        case (.idle, _), (.connecting, _), (.reconnecting, .atMostOnce):
            // Unless the CONNACK is in and this client has not handled it yet (an answer to a
            // message the broker kept for the session, which came with it).
            guard loop.isSessionLive else { return waiter.resume(throwing: MQTTError.notConnected) }
        case (.connected, _), (.reconnecting, .atLeastOnce):
            break
        }
        // Counted before libmosquitto has it, so its PUBACK cannot come unsignalled.
        loop.awaitPublishes(1)
        let (rc, mid) = handOver(topic: topic, payload: payload, qos: qos, retain: retain)
        if rc != MOSQ_ERR_SUCCESS.rawValue, !(rc == MOSQ_ERR_NO_CONN.rawValue && qos == .atLeastOnce) {
            loop.awaitPublishes(-1)
        }
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            publishWaiters[mid] = (qos, waiter)
        case MOSQ_ERR_NO_CONN.rawValue where qos == .atLeastOnce:
            // Queued inside libmosquitto and sent after the reconnect: wait for its PUBACK.
            publishWaiters[mid] = (qos, waiter)
        case MOSQ_ERR_INVAL.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue:
            waiter.resume(throwing: MQTTError.invalidTopic(topic))
        case nil:
            waiter.resume(throwing: MQTTError.closed)
        case let code?:
            waiter.resume(throwing: error(code))
        }
    }

    /// Subscribes and returns when the broker grants it (SUBACK). The topic is remembered and
    /// restored after every reconnect; called while disconnected, it completes when the next
    /// connection has restored it. Throws `subscriptionRefused` when the broker's ACL says no.
    public func subscribe(_ topic: String, qos: MQTTQoS = .atLeastOnce) async throws {
        guard !closing else { throw MQTTError.closed }
        guard !topic.isEmpty, mosquitto_sub_topic_check(topic) == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError.invalidTopic(topic)
        }
        subscriptions[topic] = qos
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            subscribeWaiters[topic, default: []].append(waiter)
            if phase == .connected { _ = sendSubscribe(topic, qos: qos) }
        }
    }

    /// Forgets the topic (no restore after reconnects) and, when connected, waits for UNSUBACK.
    /// A `subscribe` of the same topic still waiting returns without a subscription.
    public func unsubscribe(_ topic: String) async throws {
        guard !closing else { throw MQTTError.closed }
        subscriptions[topic] = nil
        for waiter in subscribeWaiters.removeValue(forKey: topic) ?? [] { waiter.resume() }
        guard phase == .connected else { return }
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            var mid: Int32 = 0
            let rc = loop.withMosquitto { mosquitto_unsubscribe($0, &mid, topic) }
            switch rc {
            case MOSQ_ERR_SUCCESS.rawValue:
                unsubscribeWaiters[mid] = waiter
                loop.wake()
            case MOSQ_ERR_NO_CONN.rawValue:
                waiter.resume()
            case nil:
                waiter.resume(throwing: MQTTError.closed)
            case let code?:
                waiter.resume(throwing: error(code))
            }
        }
    }

    /// Disconnects cleanly, stops and joins the network thread, destroys the libmosquitto handle
    /// and finishes `events`. Pending calls fail with `closed`. Idempotent.
    public func close() async {
        if !closing {
            closing = true
            loop.stop()
        }
        if !loopFinished {
            await withCheckedContinuation { closeWaiters.append($0) }
        }
    }

    // MARK: - Signals from the network thread

    private func handle(_ signal: LinkSignal, thenBufferedFrom signals: Mailbox<LinkSignal>) {
        handle(signal)
        while let next = signals.nextIfBuffered() { handle(next) }
    }

    private func handle(_ signal: LinkSignal) {
        switch signal {
        case .connackAccepted:
            phase = .connected
            lastAttemptError = nil
            announced = false
            restoring = []
            for (topic, qos) in subscriptions.sorted(by: { $0.key < $1.key }) {
                if let mid = sendSubscribe(topic, qos: qos) { restoring.insert(mid) }
            }
            if restoring.isEmpty { announceConnected() }
        case .connackRefused(let code):
            attemptFailed(.connack(code, username: configuration.username))
        case .attemptFailed(let failure):
            attemptFailed(failure)
        case .disconnected(let code, let systemError):
            connectionEnded(code: code, systemError: systemError)
        case .retryScheduled(let delay):
            if let failure = lastAttemptError {
                lastAttemptError = nil
                eventSink.yield(.reconnectFailed(failure, retryIn: delay))
            }
        case .published(let mid):
            if let pending = publishWaiters.removeValue(forKey: mid) {
                loop.awaitPublishes(-1)
                pending.waiter.resume()
            }
        case .subscribed(let mid, let granted):
            subscriptionGranted(mid: mid, granted: granted)
        case .unsubscribed(let mid):
            unsubscribeWaiters.removeValue(forKey: mid)?.resume()
        }
    }

    private func announceConnected() {
        guard !announced else { return }
        announced = true
        for waiter in connectWaiters { waiter.resume() }
        connectWaiters = []
        eventSink.yield(.connected)
    }

    /// A connect or reconnect attempt failed before a session existed.
    private func attemptFailed(_ failure: MQTTError) {
        switch phase {
        case .connecting:
            phase = .idle
            for waiter in connectWaiters { waiter.resume(throwing: failure) }
            connectWaiters = []
        case .reconnecting:
            // Keep the first, most specific reason (a refused CONNACK precedes the socket close).
            if lastAttemptError == nil { lastAttemptError = failure }
        case .idle, .connected:
            break
        }
    }

    private func connectionEnded(code: Int32, systemError: Int32) {
        let failure =
            code == MOSQ_ERR_SUCCESS.rawValue
            ? nil
            : MQTTError.mosquitto(
                code, systemError: systemError, host: configuration.host, port: configuration.port)
        guard phase == .connected else {
            // A refused CONNACK was already reported; its socket close adds nothing.
            if code != MOSQ_ERR_CONN_REFUSED.rawValue {
                attemptFailed(failure ?? .connectionLost("closed before CONNACK"))
            }
            return
        }
        phase = closing ? .idle : .reconnecting
        announced = false
        restoring = []
        subscribeMids = [:]
        for (mid, pending) in publishWaiters where pending.qos == .atMostOnce {
            publishWaiters[mid] = nil
            loop.awaitPublishes(-1)
            pending.waiter.resume(throwing: MQTTError.notConnected)
        }
        for waiter in unsubscribeWaiters.values { waiter.resume() }
        unsubscribeWaiters = [:]
        eventSink.yield(.disconnected(failure.map { .connectionLost($0) } ?? .closedByClient))
    }

    private func subscriptionGranted(mid: Int32, granted: [Int32]) {
        guard let topic = subscribeMids.removeValue(forKey: mid) else { return }
        let refused = granted.first.map { $0 >= 0x80 } ?? true
        if refused { subscriptions[topic] = nil }
        for waiter in subscribeWaiters.removeValue(forKey: topic) ?? [] {
            if refused {
                waiter.resume(throwing: MQTTError.subscriptionRefused(topic: topic))
            } else {
                waiter.resume()
            }
        }
        if restoring.remove(mid) != nil, restoring.isEmpty { announceConnected() }
    }

    /// Sends SUBSCRIBE and returns its mid; `nil` when the connection just dropped (the topic is
    /// restored on the next connection) or the call failed (its waiters are told).
    private func sendSubscribe(_ topic: String, qos: MQTTQoS) -> Int32? {
        guard !closing else { return nil }
        var mid: Int32 = 0
        let rc = loop.withMosquitto { mosquitto_subscribe($0, &mid, topic, qos.rawValue) }
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            subscribeMids[mid] = topic
            loop.wake()
            return mid
        case MOSQ_ERR_NO_CONN.rawValue, nil:
            return nil
        case let code?:
            subscriptions[topic] = nil
            for waiter in subscribeWaiters.removeValue(forKey: topic) ?? [] {
                waiter.resume(throwing: error(code))
            }
            return nil
        }
    }

    /// The network thread is gone and the handle destroyed: fail whatever still waits.
    private func networkThreadEnded() {
        loopFinished = true
        closing = true
        phase = .idle
        let waiters =
            connectWaiters + subscribeWaiters.values.flatMap { $0 } + Array(unsubscribeWaiters.values)
        loop.awaitPublishes(-publishWaiters.count)
        for pending in publishWaiters.values { pending.waiter.resume(throwing: MQTTError.closed) }
        connectWaiters = []
        publishWaiters = [:]
        subscribeWaiters = [:]
        unsubscribeWaiters = [:]
        for waiter in waiters { waiter.resume(throwing: MQTTError.closed) }
        eventSink.finish()
        for waiter in closeWaiters { waiter.resume() }
        closeWaiters = []
    }

    private func error(_ code: Int32) -> MQTTError {
        .mosquitto(code, systemError: 0, host: configuration.host, port: configuration.port)
    }
}
