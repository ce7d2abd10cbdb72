import Timing
import CMosquitto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The network thread of one `MQTTClient`: our own `poll(2)` loop over `mosquitto_socket()` plus
/// a wake-up pipe, driving `mosquitto_loop_read/write/misc`.
///
/// Why not `mosquitto_loop_start`: its loop uses `select`, which fails for descriptors ≥ 1024
/// (a gateway with many open files gets there; INTEROP.md), and its reconnect has no jitter and
/// waits at least a second before the first retry. Owning the loop gives `poll`, our backoff
/// (`Backoff`), a CONNACK timeout, and an immediate `reconnectNow()`.
/// One thread per client is fine for the gateway's single broker connection.
///
/// Threading: libmosquitto callbacks run on this thread (inside `mosquitto_loop_read/write`).
/// The actor calls `mosquitto_publish`/`subscribe` through `withMosquitto`, then `wake()`s the
/// loop so it writes the queued packets.
final class NetworkLoop: Sendable {
    private struct Control {
        var connectRequested = false
        var reconnectRequested = false
        var stopping = false
        var destroyed = false
    }

    /// Network threads alive in this process, by broker port; tests check that `close()`
    /// ends them. Keyed by port so a test counts only the clients of its own broker while
    /// other suites run theirs in parallel.
    static let runningThreads = Mutex<[Int: Int]>([:])

    static func runningThreads(port: Int) -> Int {
        runningThreads.withLock { $0[port, default: 0] }
    }

    private let handle: MosquittoHandle
    private let box: CallbackBox
    private let configuration: MQTTConfiguration
    /// Times the reconnect backoff and the CONNACK deadline (`ReconnectState` decides on it).
    private let clock: OffsetClock
    private let control = Mutex(Control())
    /// A byte is in the wake pipe and the thread has not yet taken it: a burst of publishes
    /// then writes one byte, not one each (and takes `control` once, not once each).
    private let wakePending = Atomic<Bool>(false)
    /// `control` holds a request the thread has not read yet: the thread takes the lock
    /// only then, instead of once per round, where it would wait for every publish
    /// (`withMosquitto` holds the lock while libmosquitto queues the packet).
    private let controlChanged = Atomic<Bool>(false)
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init(
        configuration: MQTTConfiguration, clock: OffsetClock, signals: Mailbox<LinkSignal>.Continuation,
        messages: Mailbox<MQTTEvent>.Continuation
    ) throws(MQTTError) {
        let box = CallbackBox(
            signals: signals, messages: messages, messageLimit: max(1, configuration.maximumBufferedMessages))
        let userdata = Unmanaged.passRetained(box).toOpaque()
        do {
            handle = try MosquittoHandle.make(configuration: configuration, userdata: userdata)
        } catch {
            Unmanaged<CallbackBox>.fromOpaque(userdata).release()
            throw error
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            mosquitto_destroy(handle.pointer)
            Unmanaged<CallbackBox>.fromOpaque(userdata).release()
            throw .library(
                code: MOSQ_ERR_ERRNO.rawValue, message: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.box = box
        self.configuration = configuration
        self.clock = clock
    }

    func start() {
        Thread { [self] in
            Self.runningThreads.withLock { $0[configuration.port, default: 0] += 1 }
            run()
        }.start()
    }

    /// Starts the first connection; after its CONNACK the loop reconnects on its own forever.
    func requestConnect() {
        control.withLock { $0.connectRequested = true }
        controlChanged.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Skips the rest of the current backoff delay.
    func reconnectNow() {
        control.withLock { $0.reconnectRequested = true }
        controlChanged.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Sends DISCONNECT (no last will), ends the thread, destroys the handle, finishes the signal
    /// stream and releases the callback box. Safe to call more than once and from `deinit`.
    func stop() {
        control.withLock { $0.stopping = true }
        controlChanged.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Counts publishes someone waits for up (before handing one over) or down (once it is
    /// settled or given up): see `CallbackBox.awaitedPublishes`.
    func awaitPublishes(_ change: Int) {
        box.awaitedPublishes.add(change, ordering: .releasing)
    }

    /// Messages received and dropped because the client's consumer had `maximumBufferedMessages`
    /// unread (also after the mailbox ended, when nobody reads them any more).
    var droppedMessages: Int { box.droppedMessages.load(ordering: .relaxed) }

    /// Whether libmosquitto holds an accepted session now (`CallbackBox.live`), which the
    /// client's actor may not have heard yet.
    var isSessionLive: Bool { box.live.load(ordering: .acquiring) }

    /// Runs `body` with the handle unless the loop is stopping; holds the lock so the network
    /// thread cannot destroy the handle meanwhile.
    func withMosquitto<R>(_ body: (OpaquePointer) -> R) -> R? {
        control.withLock { state in
            state.stopping || state.destroyed ? nil : body(handle.pointer)
        }
    }

    /// Makes the network thread look at its queues now. The lock keeps the write away from a
    /// descriptor the thread has already closed.
    func wake() {
        // While a byte is pending the thread has yet to drain it, and looks at its queues
        // and its control after that: whatever was queued before this call is seen.
        guard !wakePending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        control.withLock { state in
            guard !state.destroyed else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// Shuts the TCP socket down without DISCONNECT, exactly like a network failure: the broker
    /// publishes the last will and this loop reconnects. Used by tests.
    func breakConnection() {
        _ = withMosquitto { mosq in
            let socket = mosquitto_socket(mosq)
            if socket >= 0 { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
        wake()
    }

    // MARK: - The network thread

    private var mosq: OpaquePointer { handle.pointer }
    private var host: String { configuration.host }
    private var port: Int { configuration.port }

    /// The thread's loop: take requests, service the open socket or wait for the next dial
    /// (`ReconnectState` decides when), until `stop()`.
    private func run() {
        var state = ReconnectState(backoff: configuration.reconnect, connectTimeout: configuration.connectTimeout)
        while true {
            var (connect, reconnect, stopping) = (false, false, false)
            if controlChanged.exchange(false, ordering: .sequentiallyConsistent) {
                (connect, reconnect, stopping) = control.withLock { control in
                    defer {
                        control.connectRequested = false
                        control.reconnectRequested = false
                    }
                    return (control.connectRequested, control.reconnectRequested, control.stopping)
                }
            }
            if stopping { break }
            if connect, mosquitto_socket(mosq) < 0 {
                state.connectRequested()
                dial(first: true, &state, at: clock.now())
            }
            if reconnect { state.reconnectRequested(at: clock.now()) }

            let socket = mosquitto_socket(mosq)
            if socket >= 0 {
                serviceConnection(socket, &state, clock: clock)
                continue
            }
            switch state.idle(at: clock.now()) {
            case .dial: dial(first: false, &state, at: clock.now())
            case .wait(let timeout): waitForWake(timeout: timeout)
            case .waitForRequest: waitForWake(timeout: nil)
            }
        }
        finish()
    }

    /// Starts a connection (`first`) or a reconnection; a failure at once is reported and,
    /// once sessions are retried, schedules the next try.
    private func dial(first: Bool, _ state: inout ReconnectState, at now: Duration) {
        errno = 0
        let keepalive = Int32(clamping: max(configuration.keepalive.components.seconds, 5))
        let rc = first ? mosquitto_connect(mosq, host, Int32(port), keepalive) : mosquitto_reconnect(mosq)
        let systemError = errno
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            state.dialStarted(at: now)
            return
        }
        box.signals.yield(.attemptFailed(.mosquitto(rc, systemError: systemError, host: host, port: port)))
        if let delay = state.dialFailed(at: now, unitRandom: Double.random(in: 0..<1)) {
            box.signals.yield(.retryScheduled(after: delay))
        }
    }

    /// One poll round on the open `socket`, then what it led to: a session up, the socket
    /// closed (a failed attempt is reported; a retry may be scheduled), or a CONNACK overdue.
    private func serviceConnection(_ socket: Int32, _ state: inout ReconnectState, clock: OffsetClock) {
        let rc = service(socket, timeout: state.pollTimeout(at: clock.now()))
        state.serviced(sessions: box.sessions.load(ordering: .acquiring))
        if mosquitto_socket(mosq) < 0 {
            // Closed during service. libmosquitto reported it via on_disconnect, except for
            // a failed TLS handshake, which closes the socket silently: say so ourselves
            // (the client ignores this when a refused CONNACK already explained it).
            let systemError = errno
            let closure = state.closed(at: clock.now(), unitRandom: Double.random(in: 0..<1))
            if closure.failedAttempt {
                let failure: MQTTError =
                    rc == MOSQ_ERR_SUCCESS.rawValue
                    ? .connectionLost("\(host):\(port) closed the connection before CONNACK")
                    : .mosquitto(rc, systemError: systemError, host: host, port: port)
                box.signals.yield(.attemptFailed(failure))
            }
            if let delay = closure.retryAfter { box.signals.yield(.retryScheduled(after: delay)) }
        } else if state.connackOverdue(at: clock.now()) {
            box.signals.yield(
                .attemptFailed(.timedOut("no CONNACK from \(host):\(port) within \(configuration.connectTimeout)")))
            // The next read sees EOF and closes the connection the usual way.
            _ = shutdown(socket, Int32(SHUT_RDWR))
        }
    }

    /// One poll round on the broker socket and the wake pipe, then read, write and housekeeping
    /// (keepalive PINGREQ, QoS retries) as needed.
    /// Returns the first failing libmosquitto code, or success.
    @discardableResult
    private func service(_ socket: Int32, timeout: Duration) -> Int32 {
        var rc = MOSQ_ERR_SUCCESS.rawValue
        var fds = [
            pollfd(
                fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(mosq) ? Int16(POLLOUT) : 0),
                revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&fds, 2, Self.milliseconds(timeout))
        if fds[1].revents != 0 { drainWakePipe() }
        if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            rc = mosquitto_loop_read(mosq, 1)
        }
        if mosquitto_socket(mosq) >= 0, mosquitto_want_write(mosq) {
            let written = mosquitto_loop_write(mosq, 1)
            if rc == MOSQ_ERR_SUCCESS.rawValue { rc = written }
        }
        if mosquitto_socket(mosq) >= 0 {
            _ = mosquitto_loop_misc(mosq)
        }
        return rc
    }

    private func waitForWake(timeout: Duration?) {
        var fd = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, timeout.map(Self.milliseconds) ?? -1)
        if fd.revents != 0 { drainWakePipe() }
    }

    /// Empties the pipe, then says no byte is pending (in that order: a wake that comes
    /// in between skips its byte, and what it queued is seen by the look that follows).
    private func drainWakePipe() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            while read(wakeRead, buffer.baseAddress, buffer.count) > 0 {}
        }
        wakePending.store(false, ordering: .sequentiallyConsistent)
    }

    /// Clean shutdown: DISCONNECT (so the broker drops the last will), up to half a second to
    /// flush it, then destroy everything this loop owns.
    private func finish() {
        if mosquitto_socket(mosq) >= 0 {
            _ = mosquitto_disconnect(mosq)
            let deadline = ContinuousClock.now + .milliseconds(500)
            while mosquitto_socket(mosq) >= 0, ContinuousClock.now < deadline {
                service(mosquitto_socket(mosq), timeout: .milliseconds(50))
            }
        }
        control.withLock { state in
            state.destroyed = true
            mosquitto_destroy(mosq)
            close(wakeRead)
            close(wakeWrite)
        }
        // Counted down before the stream ends, which is what `close()` waits for.
        Self.runningThreads.withLock { $0[configuration.port, default: 0] -= 1 }
        box.signals.finish()
        Unmanaged.passUnretained(box).release()
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(total, 0))
    }
}
