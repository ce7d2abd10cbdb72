import CMosquitto

/// One libmosquitto client of the swarm and the box its C callbacks receive as
/// `userdata`.
///
/// Confined to the swarm thread: libmosquitto runs callbacks only inside the
/// `mosquitto_connect/loop_read/loop_write/loop_misc/disconnect` calls, and only the
/// swarm thread makes those. The engine keeps the box alive for as long as the handle
/// exists (`mosquitto_destroy` runs before the box is released), which is why the
/// userdata pointer is unretained.
final class SwarmClient {
    unowned let engine: SwarmEngine
    let index: Int
    let peer: any SwarmPeer
    private(set) var handle: OpaquePointer?
    /// CONNACK arrived and the broker granted every subscription (SUBACK).
    private(set) var isConnected = false
    /// SUBSCRIBE message ids of this connection still waiting for their SUBACK.
    private var pendingSubscriptions: Set<Int32> = []
    /// False while the peer chose to be offline: no reconnect attempts.
    private(set) var wantsOnline = true
    /// `mosquitto_connect` stores host and port; later attempts use `mosquitto_reconnect`.
    private var initialised = false
    private(set) var nextAttempt: ContinuousClock.Instant?
    private var backoff: Duration

    init(engine: SwarmEngine, index: Int, peer: any SwarmPeer) throws(SimulatorError) {
        self.engine = engine
        self.index = index
        self.peer = peer
        backoff = engine.configuration.reconnectDelay.lowerBound
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        guard let handle = mosquitto_new(peer.clientID, true, userdata) else {
            throw .clientCreationFailed(clientID: peer.clientID)
        }
        self.handle = handle
        // Nagle on any hop stalls a QoS-1 round trip by ~40 ms (INTEROP.md).
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_callback_set(handle, swarmClientConnected)
        mosquitto_disconnect_callback_set(handle, swarmClientDisconnected)
        mosquitto_message_callback_set(handle, swarmClientReceived)
        mosquitto_subscribe_callback_set(handle, swarmClientSubscribed)
        nextAttempt = .now
    }

    var socket: Int32 {
        guard let handle else { return -1 }
        return mosquitto_socket(handle)
    }

    func context(now: ContinuousClock.Instant = .now) -> SwarmContext {
        SwarmContext(engine: engine, client: index, now: now)
    }

    /// Starts a TCP connection if one is due. Blocking, but on loopback to a listening
    /// broker it completes in microseconds, and a refused one fails at once.
    func connectIfDue(now: ContinuousClock.Instant) -> Bool {
        guard let handle, wantsOnline, socket < 0, let due = nextAttempt, due <= now else { return false }
        let code: Int32
        if initialised {
            code = mosquitto_reconnect(handle)
        } else {
            initialised = true
            code = mosquitto_connect(
                handle, engine.configuration.host, Int32(engine.configuration.port), engine.configuration.keepAlive)
        }
        if code == MOSQ_ERR_SUCCESS.rawValue {
            nextAttempt = nil
        } else {
            scheduleReconnect(now: now)
        }
        return true
    }

    func publish(topic: String, payload: [UInt8], qos: Int32) -> Bool {
        guard let handle, isConnected else { return false }
        let code = payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, false)
        }
        // What did not fit in the socket now waits for it to be writable.
        engine.touch(index)
        return code == MOSQ_ERR_SUCCESS.rawValue
    }

    func setOnline(_ online: Bool, now: ContinuousClock.Instant) {
        defer { engine.touch(index) }
        wantsOnline = online
        if online {
            backoff = engine.configuration.reconnectDelay.lowerBound
            if socket < 0 { nextAttempt = now }
        } else {
            nextAttempt = nil
            if let handle, socket >= 0 { _ = mosquitto_disconnect(handle) }
        }
    }

    /// Called when a read or write failed: libmosquitto has closed the socket and,
    /// normally, already reported it through the disconnect callback.
    func connectionLost(now: ContinuousClock.Instant) {
        markDisconnected()
        if wantsOnline, nextAttempt == nil { scheduleReconnect(now: now) }
    }

    /// Disconnects (sending DISCONNECT when connected) and frees the handle.
    func destroy() {
        wantsOnline = false
        nextAttempt = nil
        guard let handle else { return }
        if socket >= 0 {
            _ = mosquitto_disconnect(handle)
            if mosquitto_want_write(handle) { _ = mosquitto_loop_write(handle, 1) }
        }
        markDisconnected()
        mosquitto_destroy(handle)
        self.handle = nil
    }

    private func scheduleReconnect(now: ContinuousClock.Instant) {
        nextAttempt = now + backoff
        backoff = min(backoff * 2, engine.configuration.reconnectDelay.upperBound)
    }

    private func markDisconnected() {
        guard isConnected else { return }
        isConnected = false
        engine.connectedCount -= 1
        peer.didDisconnect(context())
    }

    // MARK: - From the C callbacks

    fileprivate func handleConnect(code: Int32) {
        guard code == 0, let handle else { return }
        backoff = engine.configuration.reconnectDelay.lowerBound
        pendingSubscriptions = []
        for topic in peer.subscriptions {
            var mid: Int32 = 0
            if mosquitto_subscribe(handle, &mid, topic, 1) == MOSQ_ERR_SUCCESS.rawValue {
                pendingSubscriptions.insert(mid)
            }
        }
        if pendingSubscriptions.isEmpty { subscriptionsGranted() }
    }

    fileprivate func handleSubscribed(mid: Int32) {
        guard pendingSubscriptions.remove(mid) != nil, pendingSubscriptions.isEmpty else { return }
        subscriptionsGranted()
    }

    /// Counts as connected only now, not at CONNACK: until the broker has processed the
    /// SUBSCRIBE, a frame published to the device is routed to nobody, so a caller that
    /// waited for `waitUntilConnected` and then sent a query could lose it.
    private func subscriptionsGranted() {
        if !isConnected {
            isConnected = true
            engine.connectedCount += 1
        }
        peer.didConnect(context())
    }

    fileprivate func handleDisconnect() {
        markDisconnected()
        if wantsOnline, nextAttempt == nil { scheduleReconnect(now: .now) }
    }

    fileprivate func handleMessage(_ message: mosquitto_message) {
        guard let topicPointer = message.topic else { return }
        let count = Int(max(0, message.payloadlen))
        // Frames from the broker are untrusted; Tuya frames are far below 64 KiB.
        guard count <= 1 << 20 else { return }
        var payload: [UInt8] = []
        if count > 0, let bytes = message.payload {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }
        peer.didReceive(topic: String(cString: topicPointer), payload: payload, context())
    }
}

// Named global functions, not closures: they carry no actor isolation, so C may call them
// from the swarm thread (INTEROP.md: a closure formed in a @MainActor context traps).

private func swarmClientConnected(_ handle: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32) {
    guard let userdata else { return }
    Unmanaged<SwarmClient>.fromOpaque(userdata).takeUnretainedValue().handleConnect(code: code)
}

private func swarmClientDisconnected(_ handle: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32) {
    guard let userdata else { return }
    Unmanaged<SwarmClient>.fromOpaque(userdata).takeUnretainedValue().handleDisconnect()
}

private func swarmClientSubscribed(
    _ handle: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32, _ count: Int32,
    _ granted: UnsafePointer<Int32>?
) {
    guard let userdata else { return }
    Unmanaged<SwarmClient>.fromOpaque(userdata).takeUnretainedValue().handleSubscribed(mid: mid)
}

private func swarmClientReceived(
    _ handle: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ message: UnsafePointer<mosquitto_message>?
) {
    guard let userdata, let message else { return }
    Unmanaged<SwarmClient>.fromOpaque(userdata).takeUnretainedValue().handleMessage(message.pointee)
}
