import Synchronization

/// Hands every value to every stream made so far; a stream joins from the moment it is
/// made and leaves when its reader stops. Subscribing is synchronous, so nothing sent
/// after `stream()` returns is missed.
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var listeners: [Int: AsyncStream<Element>.Continuation] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let key = state.withLock { state in
            state.next += 1
            state.listeners[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: key) }
        }
        return stream
    }

    func send(_ element: Element) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener.yield(element) }
    }
}
