import Synchronization

/// What a channel has read and nobody has asked for yet, and the reads waiting for more, oldest
/// first: the one home of the reader bookkeeping behind `SocketChannel`, `HCIATTChannel` and
/// `DescriptorByteStream`. It lives in its owner's `Mutex` next to the owner's other state
/// (pause thresholds, the end), and `Mutex.nextRead` is the one `receive` they share.
struct ReadQueue<Element: Sendable>: Sendable {
    typealias Continuation = CheckedContinuation<Element?, any Error>

    private(set) var unread: [Element] = []
    private var waiting: [(id: Int, continuation: Continuation)] = []
    private var lastID = 0

    /// Hands `element` to the oldest waiting read, or keeps it for the next one.
    /// Returns whether it was kept.
    @discardableResult
    mutating func deliver(_ element: Element) -> Bool {
        guard waiting.isEmpty else {
            waiting.removeFirst().continuation.resume(returning: element)
            return false
        }
        unread.append(element)
        return true
    }

    /// Answers every waiting read with the end: `error`, or nil for end-of-file.
    mutating func finishWaiting(_ error: (any Error)?) {
        for read in waiting {
            if let error {
                read.continuation.resume(throwing: error)
            } else {
                read.continuation.resume(returning: nil)
            }
        }
        waiting.removeAll()
    }

    /// Takes what was read and not asked for (to drop it, or to hand it elsewhere).
    mutating func takeUnread() -> [Element] {
        defer { unread.removeAll() }
        return unread
    }

    fileprivate mutating func newReadID() -> Int {
        lastID += 1
        return lastID
    }

    /// Answers the read at once if it can, else queues it. Returns the unread element it took.
    fileprivate mutating func answerNow(_ id: Int, _ continuation: Continuation, end: ReadEnd?) -> Element? {
        if !unread.isEmpty {
            let element = unread.removeFirst()
            continuation.resume(returning: element)
            return element
        } else if let end {
            if let error = end.error {
                continuation.resume(throwing: error)
            } else {
                continuation.resume(returning: nil)
            }
        } else if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            waiting.append((id, continuation))
        }
        return nil
    }

    fileprivate mutating func cancel(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}

/// How reading ended: with `error`, or (nil) at end-of-file or after `close()`.
struct ReadEnd {
    var error: (any Error)?
}

/// The state a `ReadQueue` lives in.
protocol ReadQueueState: SendableMetatype {
    associatedtype Element: Sendable
    var reads: ReadQueue<Element> { get set }
    /// Nil while reading goes on.
    var readEnd: ReadEnd? { get }
    /// After a read took `element` from the unread ones (to resume reading paused for a slow reader).
    mutating func didTake(_ element: Element)
}

extension Mutex where Value: ReadQueueState {
    /// The next element: one already read, else the end (nil, or the error that ended reading),
    /// else the next one to arrive. Cancelling the waiting task throws `CancellationError`.
    func nextRead() async throws -> Value.Element? {
        let id = withLock { $0.reads.newReadID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: ReadQueue<Value.Element>.Continuation) in
                withLock { state in
                    if let taken = state.reads.answerNow(id, continuation, end: state.readEnd) { state.didTake(taken) }
                }
            }
        } onCancel: {
            withLock { $0.reads.cancel(id) }
        }
    }
}
