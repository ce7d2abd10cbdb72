import Synchronization

/// A clock that moves only when a test calls `advance(by:)`, so deadlines, frame gaps and
/// query intervals are tested without waiting for real time.
public final class ManualClock: Clock, Sendable {
    public init() {}

    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var deadlineWaiters: [(matches: @Sendable (Instant) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
            []
    }

    private let state = Mutex(State())

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// `Clock`'s requirement, for the code under test: it never waits on real time, it
    /// parks the caller until a test moves `now` past `deadline` with `advance(by:)`.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (true, []) }
                    if deadline <= state.now { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, Self.takeReadyWaiters(&state))
                }
                for waiter in ready { waiter.resume() }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once at least `count` tasks are asleep on this clock, so a test advances
    /// time only after the code under test has armed its timer.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once a task sleeps on this clock until `dueBy` or earlier: a test that moves
    /// time to a particular timer (a reconnect's backoff) waits for that timer, not for any
    /// (a handshake's timeout armed meanwhile would not do).
    public func waitForSleeper(dueBy deadline: Instant) async {
        await waitForSleeper { $0 <= deadline }
    }

    /// Returns once a task sleeps on this clock until exactly `deadline`: a test waits for
    /// the one timer it means to fire (a pairing deadline), not for one of the timers the
    /// code under test arms and cancels on its way there (a link's answer timeout).
    public func waitForSleeper(dueAt deadline: Instant) async {
        await waitForSleeper { $0 == deadline }
    }

    private func waitForSleeper(where matches: @escaping @Sendable (Instant) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.values.contains(where: { matches($0.deadline) }) { return true }
                state.deadlineWaiters.append((matches, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeReadyWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        var ready = state.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
        state.sleeperWaiters.removeAll { $0.count <= count }
        let deadlines = state.sleepers.values.map(\.deadline)
        let matched = state.deadlineWaiters.filter { waiter in deadlines.contains(where: waiter.matches) }
        ready += matched.map(\.continuation)
        state.deadlineWaiters.removeAll { waiter in deadlines.contains(where: waiter.matches) }
        return ready
    }
}
