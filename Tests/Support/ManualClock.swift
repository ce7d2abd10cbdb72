import Synchronization

// The benchmarks link this module too, in builds where Testing is not there.
#if canImport(Testing)
    import Testing
#endif

/// A clock that moves only when a test calls `advance(by:)`, so deadlines, frame gaps and
/// query intervals are tested without waiting for real time.
public final class ManualClock: Clock, Sendable {
    /// How long a test waits for the code under test to arm a timer before it is told so:
    /// a timer that never comes is reported (an issue naming the wait and the timers armed)
    /// instead of hanging the run. Real time (`guardTimer`, an event, not a sleeping task), as
    /// a guard only: no test waits this long unless something is wrong.
    let armingGuard: Duration
    let guardTimer: GuardTimer

    public init(armingGuard: Duration = .seconds(60), guardTimer: GuardTimer = .dispatch) {
        self.armingGuard = armingGuard
        self.guardTimer = guardTimer
    }

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
        /// Tests waiting for timers to be armed, by id.
        var waiters: [Int: Waiter] = [:]
    }

    /// A test waiting until the sleepers satisfy `isReady`, and what cancels the guard that
    /// gives up on it.
    private struct Waiter {
        var isReady: @Sendable ([Instant]) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
        var cancelGuard: (@Sendable () -> Void)?

        /// Ends the wait: `armed`, or given up by the guard.
        func end(armed: Bool) {
            cancelGuard?()
            continuation.resume(returning: armed)
        }
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
                let (resumeNow, ready) = state.withLock { state -> (Bool, [Waiter]) in
                    if Task.isCancelled { return (true, []) }
                    if deadline <= state.now { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, Self.takeReadyWaiters(&state))
                }
                for waiter in ready { waiter.end(armed: true) }
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

    /// The deadlines tasks sleep until now, earliest first: a test checks that a timer the
    /// code under test should have cancelled is gone.
    public var armed: [Instant] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Returns once at least `count` tasks are asleep on this clock, so a test advances
    /// time only after the code under test has armed its timer.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitUntil("\(count) timers armed") { $0.count >= count }
    }

    /// Returns once a task sleeps on this clock until `dueBy` or earlier: a test that moves
    /// time to a particular timer (a reconnect's backoff) waits for that timer, not for any
    /// (a handshake's timeout armed meanwhile would not do).
    public func waitForSleeper(dueBy deadline: Instant) async {
        await waitUntil("a timer due by \(deadline.offset)") { $0.contains { $0 <= deadline } }
    }

    /// Returns once a task sleeps on this clock until exactly `deadline`: a test waits for
    /// the one timer it means to fire (a pairing deadline), not for one of the timers the
    /// code under test arms and cancels on its way there (a link's answer timeout).
    public func waitForSleeper(dueAt deadline: Instant) async {
        await waitUntil("a timer due at \(deadline.offset)") { $0.contains { $0 == deadline } }
    }

    private func waitUntil(_ what: String, _ isReady: @escaping @Sendable ([Instant]) -> Bool) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let armed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready = state.withLock { state -> Bool in
                if isReady(state.sleepers.values.map(\.deadline)) { return true }
                state.waiters[id] = Waiter(isReady: isReady, continuation: continuation)
                return false
            }
            if ready {
                continuation.resume(returning: true)
                return
            }
            let cancelGuard = guardTimer.arm(armingGuard) { [weak self] in
                self?.state.withLock { $0.waiters.removeValue(forKey: id) }?.end(armed: false)
            }
            // Kept with the waiter, so a wait that ends in time cancels its guard.
            let ended = state.withLock { state -> Bool in
                guard state.waiters[id] != nil else { return true }
                state.waiters[id]?.cancelGuard = cancelGuard
                return false
            }
            if ended { cancelGuard() }
        }
        guard !armed else { return }
        let (now, deadlines) = state.withLock { state in
            (state.now.offset, state.sleepers.values.map(\.deadline.offset).sorted())
        }
        let message =
            "gave up after \(armingGuard) waiting for \(what) on the manual clock (now \(now), armed: \(deadlines))"
        #if canImport(Testing)
            // Recorded here, in the test's task, so the issue is the test's.
            Issue.record(Comment(rawValue: message))
        #else
            print("ManualClock: \(message)")
        #endif
    }

    private static func takeReadyWaiters(_ state: inout State) -> [Waiter] {
        let deadlines = state.sleepers.values.map(\.deadline)
        let ready = state.waiters.filter { $0.value.isReady(deadlines) }
        for id in ready.keys { state.waiters[id] = nil }
        return Array(ready.values)
    }
}
