import CMosquitto
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Many MQTT clients in one process, driven by one thread: what a thousand simulated
/// Tuya devices need, where libmosquitto's own loop would need a thread and a `select`
/// per client (INTEROP.md). Each client is a `SwarmPeer`; its callbacks and deadlines
/// run on the swarm thread, and the rest of the program reaches the peers only through
/// `perform` and `waitUntil`, which hop onto that thread.
///
/// Clients connect with their peer's client id and clean sessions, subscribe at QoS 1
/// after every connect, set `TCP_NODELAY`, and reconnect with backoff whenever the
/// broker goes away, until `stop()`.
public final class MosquittoSwarm: Sendable {
    public let configuration: SwarmConfiguration
    private let engine: SwarmEngine
    private let inbox: SwarmInbox
    private let thread = Mutex<pthread_t?>(nil)

    public init(configuration: SwarmConfiguration) throws(SimulatorError) {
        self.configuration = configuration
        engine = SwarmEngine(configuration: configuration)
        inbox = try SwarmInbox()
    }

    deinit {
        stop()
    }

    /// Starts the loop thread; clients added before or after connect from then on.
    public func start() throws(SimulatorError) {
        // Made before the thread, so a process out of descriptors hears why instead of the
        // thread stopping it.
        let readiness = try SwarmReadiness(wake: inbox.wakeReadDescriptor)
        let started = inbox.state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        guard started else { return }
        let context = Unmanaged.passRetained(SwarmThreadContext(engine: engine, inbox: inbox, readiness: readiness))
            .toOpaque()
        var handle = pthread_t()
        let code = pthread_create(&handle, nil, swarmThreadMain, context)
        guard code == 0 else {
            Unmanaged<SwarmThreadContext>.fromOpaque(context).release()
            inbox.state.withLock { $0.phase = .idle }
            throw .systemResource("the swarm thread", errno: code)
        }
        thread.withLock { $0 = handle }
    }

    /// Disconnects and destroys every client, ends every pending wait, and joins the
    /// thread. Blocks for as long as that takes (milliseconds for a thousand clients).
    public func stop() {
        let wasRunning = inbox.state.withLock { state -> Bool in
            switch state.phase {
            case .running:
                state.phase = .stopRequested
                return true
            case .idle:
                state.phase = .stopped
                return false
            case .stopRequested, .stopped:
                return false
            }
        }
        if wasRunning { inbox.wake() }
        guard
            let handle = thread.withLock({ current -> pthread_t? in
                defer { current = nil }
                return current
            })
        else { return }
        _ = pthread_join(handle, nil)
    }

    /// Runs `body` on the swarm thread (or at once, if the loop is not running) and
    /// returns its result: the only way to touch peers from outside.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (SwarmEngine) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            inbox.submit({ engine in continuation.resume(returning: body(engine)) }, engine: engine)
        }
    }

    /// Waits until `condition` returns a value, checked on the swarm thread after every
    /// turn of the loop, or until `timeout` passes (nil). Waiting on events, not sleeping.
    public func waitUntil<Result: Sendable>(
        timeout: Duration, _ condition: @escaping @Sendable (SwarmEngine) -> Result?
    ) async -> Result? {
        await withCheckedContinuation { continuation in
            inbox.submit(
                { engine in
                    engine.addWaiter(
                        deadline: .now + timeout,
                        check: { engine in
                            guard let result = condition(engine) else { return false }
                            continuation.resume(returning: result)
                            return true
                        },
                        expire: { continuation.resume(returning: nil) })
                }, engine: engine)
        }
    }

    /// True once `count` clients (all of them when nil) are connected, false at the timeout.
    public func waitUntilConnected(_ count: Int? = nil, timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout) { engine in
            engine.connectedCount >= (count ?? engine.clientCount) ? true : nil
        } ?? false
    }

    /// Adds the clients `makePeers` creates and returns their indices. The peers are
    /// created on the swarm thread, which owns them from then on.
    public func add(_ makePeers: @escaping @Sendable () -> [any SwarmPeer]) async throws(SimulatorError) -> Range<Int> {
        let result: Result<Range<Int>, SimulatorError> = await perform { engine in
            let first = engine.clientCount
            do throws(SimulatorError) {
                for peer in makePeers() { _ = try engine.add(peer) }
                return .success(first..<engine.clientCount)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// What the thread entry point receives: the engine to run and the inbox to drain.
private final class SwarmThreadContext {
    let engine: SwarmEngine
    let inbox: SwarmInbox
    var readiness: SwarmReadiness

    init(engine: SwarmEngine, inbox: SwarmInbox, readiness: consuming SwarmReadiness) {
        self.engine = engine
        self.inbox = inbox
        self.readiness = readiness
    }
}

/// The swarm thread: runs the loop, then, under the inbox lock, runs operations that
/// arrived while it was shutting down and marks the loop stopped (its last access).
private func swarmThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let context = Unmanaged<SwarmThreadContext>.fromOpaque(argument).takeRetainedValue()
    context.engine.run(inbox: context.inbox, readiness: &context.readiness)
    context.inbox.state.withLock { state in
        for operation in state.operations { operation(context.engine) }
        state.operations.removeAll()
        state.phase = .stopped
    }
    return nil
}
