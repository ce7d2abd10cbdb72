import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

/// The state behind a `MosquittoSwarm` and its loop: every client, the connection
/// count and the pending waits, driven by one thread that waits on all client sockets.
///
/// Why one loop: libmosquitto's own loop uses `select` (useless past fd 1024) and a
/// thread per client (~11 kB each); driving `mosquitto_loop_read/write/misc` from one
/// poll over `mosquitto_socket()` holds thousands of clients in one thread (INTEROP.md).
///
/// `@unchecked Sendable`, with this proof: the engine is touched (a) by the swarm thread
/// while the swarm's phase is `running`, including the libmosquitto callbacks, which
/// run inside calls that thread makes; or (b) inside the swarm's inbox lock while the
/// phase is not `running` (before `start`, after the loop ended). The phase leaves
/// `running` only under that lock, as the thread's last access; it enters `running`
/// under that lock before the thread exists. So (a) and (b) never overlap, and
/// everything in (b) is serialised by the lock.
public final class SwarmEngine: @unchecked Sendable {
    let configuration: SwarmConfiguration
    var clients: [SwarmClient] = []
    /// Clients whose CONNACK arrived and that have not disconnected since.
    public internal(set) var connectedCount = 0
    private var waiters: [Waiter] = []
    private var isLooping = false
    /// Clients to look at again this turn (see `touch`).
    private var touched: [Int] = []
    /// When the earliest peer deadline and the earliest reconnect are due, as of the last
    /// look (`sync` lowers them; a full scan sets them).
    private var earliestDeadline = SwarmEngine.never
    private var earliestAttempt = SwarmEngine.never
    /// Later than anything the loop waits for ("none due").
    private static let never = ContinuousClock.now + .seconds(100_000_000)

    private struct Waiter {
        var deadline: ContinuousClock.Instant
        /// Returns true once satisfied (and has resumed its continuation).
        var check: (SwarmEngine) -> Bool
        var expire: () -> Void
    }

    init(configuration: SwarmConfiguration) {
        self.configuration = configuration
    }

    public var clientCount: Int { clients.count }

    /// Adds a client; it connects on the loop's next turn. Returns its index.
    public func add(_ peer: any SwarmPeer) throws(SimulatorError) -> Int {
        _ = mosquittoLibrary
        let client = try SwarmClient(engine: self, index: clients.count, peer: peer)
        clients.append(client)
        return client.index
    }

    public func peer(at index: Int) -> (any SwarmPeer)? {
        clients.indices.contains(index) ? clients[index].peer : nil
    }

    public func context(for index: Int) -> SwarmContext {
        SwarmContext(engine: self, client: index, now: .now)
    }

    public func isConnected(_ index: Int) -> Bool {
        clients.indices.contains(index) && clients[index].isConnected
    }

    func addWaiter(
        deadline: ContinuousClock.Instant, check: @escaping (SwarmEngine) -> Bool, expire: @escaping () -> Void
    ) {
        if check(self) { return }
        guard isLooping, deadline > .now else {
            expire()
            return
        }
        waiters.append(Waiter(deadline: deadline, check: check, expire: expire))
    }

    // MARK: - The loop

    /// Runs on the swarm thread until `inbox` says stop; then disconnects and destroys
    /// every client and ends every wait.
    ///
    /// A turn costs what happened in it, not the number of clients: sockets wait in an epoll
    /// set (`SwarmReadiness`), and the peers' deadlines and reconnects are scanned only when
    /// the earliest one is due, or after something changed them outside a client's own
    /// callbacks (an operation from the inbox), or once a second with the keep-alives.
    func run(inbox: SwarmInbox, readiness: inout SwarmReadiness) {
        isLooping = true
        var nextMisc = ContinuousClock.now + .seconds(1)
        var rescan = true
        while true {
            let (operations, stopping) = inbox.takeOperations()
            for operation in operations { operation(self) }
            if stopping { break }
            if !operations.isEmpty { rescan = true }

            var now = ContinuousClock.now
            if now >= nextMisc {
                for client in clients where client.socket >= 0 {
                    if let handle = client.handle { _ = mosquitto_loop_misc(handle) }
                }
                nextMisc = now + .seconds(1)
                rescan = true
            }
            if rescan || now >= earliestAttempt { connectDue(now: now, &readiness) }
            if rescan || now >= earliestDeadline { firePeerDeadlines(now: now) }
            if rescan {
                for client in clients { sync(client, &readiness) }
                rescan = false
            } else {
                syncTouched(&readiness)
            }
            resolveWaiters(now: now)

            let ready = readiness.wait(timeout: timeoutMilliseconds(now: now, nextMisc: nextMisc))
            now = ContinuousClock.now
            for event in ready {
                guard let index = event.client else {
                    inbox.drainWake()
                    continue
                }
                guard clients.indices.contains(index) else { continue }
                service(clients[index], event, now: now)
                touched.append(index)
            }
            syncTouched(&readiness)
            resolveWaiters(now: now)
        }
        for client in clients { client.destroy() }
        isLooping = false
        let ending = waiters
        waiters.removeAll()
        for waiter in ending where !waiter.check(self) { waiter.expire() }
    }

    /// A client published, connected or disconnected outside the loop's own bookkeeping:
    /// its socket, its pending writes and its peer's deadline are looked at this turn.
    func touch(_ index: Int) {
        touched.append(index)
    }

    private func syncTouched(_ readiness: inout SwarmReadiness) {
        while let index = touched.popLast() {
            if clients.indices.contains(index) { sync(clients[index], &readiness) }
        }
    }

    /// Brings the epoll set and the earliest deadline and reconnect up to date with one client.
    private func sync(_ client: SwarmClient, _ readiness: inout SwarmReadiness, connected: Bool = false) {
        let socket = client.socket
        let wantsWrite = socket >= 0 && client.handle.map { mosquitto_want_write($0) } ?? false
        readiness.update(client: client.index, socket: socket, wantsWrite: wantsWrite, connected: connected)
        if let deadline = client.peer.deadline, deadline < earliestDeadline { earliestDeadline = deadline }
        if let attempt = client.nextAttempt, attempt < earliestAttempt { earliestAttempt = attempt }
    }

    /// Starts due connects, at most `connectsPerTurn`, and notes when the next one is due
    /// (now, when the budget ran out).
    private func connectDue(now: ContinuousClock.Instant, _ readiness: inout SwarmReadiness) {
        var budget = configuration.connectsPerTurn
        earliestAttempt = Self.never
        for client in clients {
            guard let attempt = client.nextAttempt else { continue }
            guard attempt <= now else {
                earliestAttempt = min(earliestAttempt, attempt)
                continue
            }
            guard budget > 0 else {
                earliestAttempt = now
                return
            }
            if client.connectIfDue(now: now) {
                budget -= 1
                sync(client, &readiness, connected: true)
            }
            if let next = client.nextAttempt { earliestAttempt = min(earliestAttempt, next) }
        }
    }

    /// Calls every peer whose deadline has passed and notes the earliest one left.
    private func firePeerDeadlines(now: ContinuousClock.Instant) {
        earliestDeadline = Self.never
        for client in clients {
            if let deadline = client.peer.deadline, deadline <= now {
                client.peer.deadlinePassed(client.context(now: now))
                touched.append(client.index)
            }
            if let deadline = client.peer.deadline { earliestDeadline = min(earliestDeadline, deadline) }
        }
    }

    private func service(_ client: SwarmClient, _ event: SwarmReadiness.Event, now: ContinuousClock.Instant) {
        guard let handle = client.handle, client.socket >= 0 else { return }
        var code = MOSQ_ERR_SUCCESS.rawValue
        if event.readable {
            code = mosquitto_loop_read(handle, 1)
        }
        // Also write what the read's callbacks queued (a subscription, a device's report on
        // connect) in this turn, before waiters are resolved: a test that waited for
        // "connected" must not find the device's connect report still sitting in its buffer.
        if code == MOSQ_ERR_SUCCESS.rawValue, client.socket >= 0, event.writable || mosquitto_want_write(handle) {
            code = mosquitto_loop_write(handle, 1)
        }
        if code != MOSQ_ERR_SUCCESS.rawValue, client.socket < 0 {
            client.connectionLost(now: now)
        }
    }

    private func resolveWaiters(now: ContinuousClock.Instant) {
        guard !waiters.isEmpty else { return }
        var kept: [Waiter] = []
        for waiter in waiters {
            if waiter.check(self) { continue }
            if waiter.deadline <= now {
                waiter.expire()
            } else {
                kept.append(waiter)
            }
        }
        waiters = kept
    }

    /// Until the earliest of: keep-alive housekeeping, a reconnect, a peer deadline, a
    /// wait's deadline; rounded up to whole milliseconds, at most one second.
    private func timeoutMilliseconds(now: ContinuousClock.Instant, nextMisc: ContinuousClock.Instant) -> Int32 {
        var earliest = min(nextMisc, earliestAttempt, earliestDeadline)
        for waiter in waiters where waiter.deadline < earliest { earliest = waiter.deadline }
        guard earliest > now else { return 0 }
        let (seconds, attoseconds) = (earliest - now).components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(milliseconds, 1000))
    }
}

/// `mosquitto_lib_init` once per process; a global `let` is initialised exactly once,
/// thread-safely.
let mosquittoLibrary: Int32 = mosquitto_lib_init()
