import Synchronization

/// An unbounded queue from any number of producers to one consumer task, in the order the
/// producers' `yield`s took the lock: what `AsyncStream.makeStream(bufferingPolicy:
/// .unbounded)` gives, for the gateway's hot paths (each broker message and each controller
/// event passes through several).
///
/// Why not `AsyncStream`: its storage lives in the standard library, unspecialised, so every
/// `yield` and `next` looks up generic metadata (5 % of the daemon's CPU under load in
/// `swift_getGenericMetadata` alone). Here the code is inlinable, so it is specialised for
/// each element type.
///
/// Semantics as `AsyncStream`'s: iterators made one after another continue where the last
/// one stopped; `finish()` ends the sequence after the buffered elements; cancelling the
/// consuming task ends it at once; either way `onTermination` runs once, and later `yield`s
/// are dropped (and return false). Dropping the consumer side (every copy of the `Mailbox`
/// and its iterators) ends it too, so a producer that outlives its consumer stops buffering.
public struct Mailbox<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    /// The producer side: copy it freely, across tasks and threads.
    public struct Continuation: Sendable {
        @usableFromInline let storage: MailboxStorage<Element>

        /// Appends the element and wakes the consumer when it waits. False when the mailbox
        /// has ended (finished, or its consumer cancelled or gone): the element is dropped.
        @inlinable @discardableResult
        public func yield(_ element: Element) -> Bool {
            storage.yield(element)
        }

        /// As `yield(_:)`, unless `limit` elements are buffered already: then the element is
        /// dropped and the answer is false.
        @inlinable @discardableResult
        public func yield(_ element: Element, buffering limit: Int) -> Bool {
            storage.yield(element, limit: limit)
        }

        /// Ends the sequence once the consumer has read what is buffered.
        public func finish() {
            storage.finish()
        }

        /// Runs once when the mailbox ends: after `finish()`, or when its consumer is
        /// cancelled or dropped.
        public func onTermination(_ handler: @escaping @Sendable () -> Void) {
            storage.setTermination(handler)
        }
    }

    @usableFromInline let consumer: MailboxConsumer<Element>

    /// A mailbox and the continuation that feeds it.
    public static func make(of _: Element.Type = Element.self) -> (mailbox: Mailbox, continuation: Continuation) {
        let storage = MailboxStorage<Element>()
        return (Mailbox(consumer: MailboxConsumer(storage)), Continuation(storage: storage))
    }

    /// A mailbox that has already ended: for a source with nothing to say.
    public static func finished() -> Mailbox {
        let (mailbox, continuation) = make()
        continuation.finish()
        return mailbox
    }

    @usableFromInline init(consumer: MailboxConsumer<Element>) {
        self.consumer = consumer
    }

    /// The next buffered element, without waiting: nil when none is buffered (or the mailbox
    /// has ended). For a consumer that hops onto an actor once for a run of elements: it
    /// awaits the first outside, then takes the rest here while isolated. Iterators and this
    /// share one position, so nothing is read twice or skipped.
    @inlinable public func nextIfBuffered() -> Element? {
        if case .element(let element) = consumer.storage.take() { element } else { nil }
    }

    @inlinable public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: consumer)
    }

    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let consumer: MailboxConsumer<Element>

        @usableFromInline init(consumer: MailboxConsumer<Element>) {
            self.consumer = consumer
        }

        @inlinable public mutating func next() async -> Element? {
            await next(isolation: nil)
        }

        @inlinable public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            let storage = consumer.storage
            while true {
                switch storage.take() {
                case .element(let element): return element
                case .ended: return nil
                case .empty: await storage.waitForElements()
                }
            }
        }
    }
}

/// The consumer's handle on the storage: when the last copy of the mailbox and its iterators
/// goes, the mailbox ends (as an `AsyncStream` does when its consumer drops it).
@usableFromInline final class MailboxConsumer<Element: Sendable>: Sendable {
    @usableFromInline let storage: MailboxStorage<Element>

    init(_ storage: MailboxStorage<Element>) {
        self.storage = storage
    }

    deinit {
        storage.end()
    }
}

/// The shared state of one mailbox, behind a lock.
@usableFromInline final class MailboxStorage<Element: Sendable>: Sendable {
    @usableFromInline struct State {
        /// Buffered elements, read from `head` on; emptied (keeping its capacity) once all
        /// are read, so a steady flow does not allocate.
        @usableFromInline var buffer: [Element] = []
        @usableFromInline var head = 0
        @usableFromInline var waiter: UnsafeContinuation<Void, Never>?
        /// `finish()` was called: the buffer is still read to its end.
        @usableFromInline var finished = false
        /// Cancelled or dropped by the consumer: nothing more is read.
        @usableFromInline var ended = false
        var onTermination: (@Sendable () -> Void)?
    }

    @usableFromInline enum Take {
        case element(Element)
        case empty
        case ended
    }

    @usableFromInline let state = Mutex(State())

    @usableFromInline init() {}

    @inlinable func yield(_ element: Element, limit: Int = .max) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, UnsafeContinuation<Void, Never>?) in
            guard !state.finished, !state.ended, state.buffer.count - state.head < limit else { return (false, nil) }
            state.buffer.append(element)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return accepted
    }

    /// Elements held, read or not (for tests: what a flood leaves in memory).
    var heldCount: Int { state.withLock { $0.buffer.count } }

    @inlinable func take() -> Take {
        state.withLock { state in
            if state.ended { return .ended }
            guard state.head < state.buffer.count else { return state.finished ? .ended : .empty }
            let element = state.buffer[state.head]
            state.head += 1
            if state.head == state.buffer.count {
                state.buffer.removeAll(keepingCapacity: state.buffer.capacity <= 1024)
                state.head = 0
            } else if state.head >= 1024, state.head * 2 >= state.buffer.count {
                // A consumer that never catches up (a steady flood) would otherwise keep every
                // element it has read: drop them once they are half the buffer.
                state.buffer.removeFirst(state.head)
                state.head = 0
            }
            return .element(element)
        }
    }

    /// Returns once an element is buffered, the mailbox finishes, or the waiting task is
    /// cancelled (which ends the mailbox).
    @usableFromInline func waitForElements() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
                let wakeNow = state.withLock { state in
                    guard state.head == state.buffer.count, !state.finished, !state.ended else { return true }
                    state.waiter = waiter
                    return false
                }
                if wakeNow { waiter.resume() }
            }
        } onCancel: {
            end()
        }
    }

    func finish() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished, !state.ended else { return nil }
            state.finished = true
            defer { state.onTermination = nil }
            return state.onTermination
        }
        wake()
        handler?()
    }

    /// The consumer is cancelled or gone: drop what is buffered and refuse what comes.
    func end() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.ended else { return nil }
            state.ended = true
            state.buffer = []
            state.head = 0
            defer { state.onTermination = nil }
            return state.onTermination
        }
        wake()
        handler?()
    }

    func setTermination(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            guard !state.finished, !state.ended else { return true }
            state.onTermination = handler
            return false
        }
        if runNow { handler() }
    }

    private func wake() {
        state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }
}
