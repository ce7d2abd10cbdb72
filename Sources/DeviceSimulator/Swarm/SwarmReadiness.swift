import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

/// The swarm's sockets in one epoll set: each client's socket is registered once per
/// connection and changed only when what it waits for changes, so a turn of the loop costs
/// the sockets that are ready, not all of them. (With `poll` over a thousand clients, the
/// kernel walked every socket on every turn: half the simulator's CPU under load.)
///
/// Descriptor numbers are reused: a client's socket closed by libmosquitto leaves the set
/// by itself, and its number may come back as another client's socket. The set therefore
/// remembers which client registered each number and never removes one for a client that
/// no longer owns it.
struct SwarmReadiness: ~Copyable {
    /// A ready descriptor: the client's index, or nil for the wake-up pipe.
    struct Event {
        var client: Int?
        var readable: Bool
        var writable: Bool
    }

    private let epoll: Int32
    /// Per client: the descriptor it registered (-1 for none) and the events asked for.
    private var registered: [(descriptor: Int32, events: UInt32)] = []
    /// Descriptor → the client whose registration holds it.
    private var owners: [Int32: Int] = [:]
    private var ready: [epoll_event]

    init(wake descriptor: Int32, capacity: Int = 256) throws(SimulatorError) {
        let set = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard set >= 0 else { throw .systemResource("an epoll set", errno: errno) }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        guard epoll_ctl(set, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            let code = errno
            close(set)
            throw .systemResource("the swarm's wake-up pipe in its epoll set", errno: code)
        }
        epoll = set
        ready = Array(repeating: epoll_event(), count: capacity)
    }

    deinit {
        close(epoll)
    }

    /// Makes the set match the client's current socket and whether it has bytes to write.
    /// `connected`: the client has just opened its socket, which may carry the number of
    /// its previous, closed one.
    mutating func update(client: Int, socket: Int32, wantsWrite: Bool, connected: Bool = false) {
        while registered.count <= client { registered.append((-1, 0)) }
        let events = EPOLLIN.rawValue | (wantsWrite ? EPOLLOUT.rawValue : 0)
        let current = registered[client]
        if current.descriptor == socket, !connected {
            guard socket >= 0, current.events != events else { return }
            if control(EPOLL_CTL_MOD, socket, client: client, events: events) {
                registered[client].events = events
            }
            return
        }
        if current.descriptor >= 0, current.descriptor != socket, owners[current.descriptor] == client {
            // Fails harmlessly when the socket is already closed (it left the set then).
            _ = control(EPOLL_CTL_DEL, current.descriptor, client: client, events: 0)
            owners[current.descriptor] = nil
        }
        registered[client] = (-1, 0)
        guard socket >= 0 else { return }
        if let previous = owners[socket], previous != client {
            // The number was another client's closed socket: that registration is gone.
            registered[previous] = (-1, 0)
        }
        if control(EPOLL_CTL_ADD, socket, client: client, events: events)
            || (errno == EEXIST && control(EPOLL_CTL_MOD, socket, client: client, events: events))
        {
            registered[client] = (socket, events)
            owners[socket] = client
        }
    }

    /// Waits up to `timeout` milliseconds and returns what is ready.
    mutating func wait(timeout: Int32) -> [Event] {
        let count = ready.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
        }
        guard count > 0 else { return [] }
        return ready[0..<Int(count)].map { event in
            let token = event.data.u64
            let flags = event.events
            return Event(
                client: token == 0 ? nil : Int(token - 1),
                readable: flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                writable: flags & EPOLLOUT.rawValue != 0)
        }
    }

    private func control(_ operation: Int32, _ descriptor: Int32, client: Int, events: UInt32) -> Bool {
        var event = epoll_event(events: events, data: epoll_data_t(u64: UInt64(client) + 1))
        return epoll_ctl(epoll, operation, descriptor, &event) == 0
    }
}
