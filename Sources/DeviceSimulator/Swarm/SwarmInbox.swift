import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The hand-over point between any thread and the swarm thread: queued operations, the
/// loop's phase, and a pipe whose read end sits in the loop's poll set so a queued
/// operation wakes the loop at once.
final class SwarmInbox: Sendable {
    typealias Operation = @Sendable (SwarmEngine) -> Void

    enum Phase: Sendable {
        case idle
        case running
        case stopRequested
        case stopped
    }

    struct State: Sendable {
        var phase = Phase.idle
        var operations: [Operation] = []
    }

    let state = Mutex(State())
    let wakeReadDescriptor: Int32
    private let wakeWriteDescriptor: Int32

    init() throws(SimulatorError) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw .systemResource("a wake-up pipe", errno: errno) }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wakeReadDescriptor = descriptors[0]
        wakeWriteDescriptor = descriptors[1]
    }

    deinit {
        close(wakeReadDescriptor)
        close(wakeWriteDescriptor)
    }

    /// Queues `operation` for the swarm thread, or, when no loop is running, runs it
    /// here under the lock (see `SwarmEngine` for why that is safe).
    func submit(_ operation: @escaping Operation, engine: SwarmEngine) {
        let ranInline = state.withLock { state -> Bool in
            switch state.phase {
            case .running, .stopRequested:
                state.operations.append(operation)
                return false
            case .idle, .stopped:
                operation(engine)
                return true
            }
        }
        if !ranInline { wake() }
    }

    /// The queued operations, and whether the loop must stop after running them.
    func takeOperations() -> ([Operation], Bool) {
        state.withLock { state in
            let taken = state.operations
            state.operations.removeAll()
            return (taken, state.phase == .stopRequested)
        }
    }

    func wake() {
        var byte: UInt8 = 1
        // A full pipe already holds a pending wake-up; EAGAIN is fine.
        _ = write(wakeWriteDescriptor, &byte, 1)
    }

    func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wakeReadDescriptor, &buffer, buffer.count) > 0 {}
    }
}
