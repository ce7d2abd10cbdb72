/// The session's event stream: subscriptions, and what is sent to them.
extension SessionRunner {
    /// A new subscription to this session's events; it ends once the session has ended
    /// and every sent command has settled.
    public func events() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream<SessionEvent>.makeStream()
        guard !isDone else {
            continuation.finish()
            return stream
        }
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    func emit(_ event: SessionEvent) {
        for subscriber in subscribers.values { subscriber.yield(event) }
    }

    private func unsubscribe(_ key: Int) { subscribers[key] = nil }
}
