import Synchronization

/// A clock that moves only when a test calls `advance(by:)`, so timers are tested without
/// waiting for real time (the idea of TuyaControllerTests' `ManualClock`, trimmed to what
/// GatewayTests needs).
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var sleeperWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// `Clock`'s requirement, for the code under test: it parks the caller until a test moves
    /// `now` past `deadline`; it never waits on real time.
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, waiter) = state.withLock { state -> (Bool?, CheckedContinuation<Void, Never>?) in
                    if Task.isCancelled { return (false, nil) }
                    if deadline <= state.now { return (true, nil) }
                    state.sleepers[id] = (deadline, continuation)
                    defer { state.sleeperWaiter = nil }
                    return (nil, state.sleeperWaiter)
                }
                waiter?.resume()
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once a task is asleep on this clock, so a test moves time only after the code
    /// under test has armed its timer. One waiter at a time.
    func waitForSleeper() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let asleep = state.withLock { state in
                if !state.sleepers.isEmpty { return true }
                state.sleeperWaiter = continuation
                return false
            }
            if asleep { continuation.resume() }
        }
    }
}
