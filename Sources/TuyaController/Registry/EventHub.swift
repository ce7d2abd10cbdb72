import Synchronization
import Timing
import TuyaCore

/// Multicasts controller events: every `subscribe()` is a new `Mailbox` that sees
/// each event published after it, in order. Callable from any isolation (device link
/// actors publish directly), hence a lock rather than an actor hop that could reorder.
final class EventHub: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: Mailbox<ControllerEvent>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())

    func subscribe() -> Mailbox<ControllerEvent> {
        let (stream, continuation) = Mailbox.make(of: ControllerEvent.self)
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: ControllerEvent) {
        // Yield under the lock so two publishers cannot interleave their events differently per subscriber.
        state.withLock { state in
            for continuation in state.subscribers.values { continuation.yield(event) }
        }
    }

    /// Ends every stream; later subscribers get a finished stream.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }
}
