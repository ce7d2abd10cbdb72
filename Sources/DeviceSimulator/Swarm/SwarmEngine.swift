import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

/// The state behind a `MosquittoSwarm` and its loop: every client, the connection
/// count and the pending waits, driven by one thread that `poll`s all client sockets.
///
/// Why one poll loop: libmosquitto's own loop uses `select` (useless past fd 1024) and a
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
    func run(inbox: SwarmInbox) {
        isLooping = true
        var descriptors: [pollfd] = []
        var owners: [Int] = []
        var nextMisc = ContinuousClock.now + .seconds(1)
        while true {
            let (operations, stopping) = inbox.takeOperations()
            for operation in operations { operation(self) }
            if stopping { break }

            var now = ContinuousClock.now
            let connectsLeft = connectDue(now: now)
            firePeerDeadlines(now: now)
            if now >= nextMisc {
                for client in clients where client.socket >= 0 {
                    if let handle = client.handle { _ = mosquitto_loop_misc(handle) }
                }
                nextMisc = now + .seconds(1)
            }
            resolveWaiters(now: now)

            descriptors.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: inbox.wakeReadDescriptor, events: Int16(POLLIN), revents: 0))
            owners.append(-1)
            for client in clients {
                let socket = client.socket
                guard socket >= 0, let handle = client.handle else { continue }
                var events = Int16(POLLIN)
                if mosquitto_want_write(handle) { events |= Int16(POLLOUT) }
                descriptors.append(pollfd(fd: socket, events: events, revents: 0))
                owners.append(client.index)
            }
            let timeout = connectsLeft ? 0 : timeoutMilliseconds(now: now, nextMisc: nextMisc)
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            guard ready > 0 else { continue }
            if descriptors[0].revents != 0 { inbox.drainWake() }
            now = ContinuousClock.now
            for slot in 1..<descriptors.count where descriptors[slot].revents != 0 {
                service(clients[owners[slot]], descriptor: descriptors[slot], now: now)
            }
            resolveWaiters(now: now)
        }
        for client in clients { client.destroy() }
        isLooping = false
        let ending = waiters
        waiters.removeAll()
        for waiter in ending where !waiter.check(self) { waiter.expire() }
    }

    /// Starts due connects, at most `connectsPerTurn`; true if more are waiting.
    private func connectDue(now: ContinuousClock.Instant) -> Bool {
        var budget = configuration.connectsPerTurn
        for client in clients where client.nextAttempt.map({ $0 <= now }) ?? false {
            guard budget > 0 else { return true }
            if client.connectIfDue(now: now) { budget -= 1 }
        }
        return false
    }

    private func firePeerDeadlines(now: ContinuousClock.Instant) {
        for client in clients {
            guard let deadline = client.peer.deadline, deadline <= now else { continue }
            client.peer.deadlinePassed(client.context(now: now))
        }
    }

    private func service(_ client: SwarmClient, descriptor: pollfd, now: ContinuousClock.Instant) {
        // A callback may have closed or replaced the socket since poll.
        guard let handle = client.handle, client.socket == descriptor.fd else { return }
        var code = MOSQ_ERR_SUCCESS.rawValue
        if descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            code = mosquitto_loop_read(handle, 1)
        }
        // Also write what the read's callbacks queued (a subscription, a device's report on
        // connect) in this turn, before waiters are resolved: a test that waited for
        // "connected" must not find the device's connect report still sitting in its buffer.
        if code == MOSQ_ERR_SUCCESS.rawValue, client.socket >= 0,
            descriptor.revents & Int16(POLLOUT) != 0 || mosquitto_want_write(handle)
        {
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
        var earliest = nextMisc
        for client in clients {
            if let attempt = client.nextAttempt, attempt < earliest { earliest = attempt }
            if let deadline = client.peer.deadline, deadline < earliest { earliest = deadline }
        }
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
