import Synchronization

/// Waits for `operation` to finish, but no longer than `timeout`; returns whether it
/// finished in time. The operation keeps running when time is up (it is often a wait that
/// cannot be cancelled, such as another task's value), so use it for waits, not for work.
/// Used only at shutdown and for flushing, where the real clock is the point.
func finishes(within timeout: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    let gate = ResumeOnce()
    return await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
        gate.arm(waiter)
        Task {
            await operation()
            gate.resume(true)
        }
        gate.setTimer(
            Task {
                do { try await ContinuousClock().sleep(for: timeout) } catch { return }
                gate.resume(false)
            })
    }
}

/// Resumes one continuation exactly once, from whichever side comes first, and then
/// cancels the timer.
private final class ResumeOnce: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Bool, Never>?
        var timer: Task<Void, Never>?
        var done = false
    }

    private let state = Mutex(State())

    func arm(_ waiter: CheckedContinuation<Bool, Never>) {
        state.withLock { $0.waiter = waiter }
    }

    func setTimer(_ timer: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            state.timer = timer
            return state.done
        }
        if cancelNow { timer.cancel() }
    }

    func resume(_ value: Bool) {
        let (waiter, timer): (CheckedContinuation<Bool, Never>?, Task<Void, Never>?) = state.withLock { state in
            guard !state.done else { return (nil, nil) }
            state.done = true
            defer { state.waiter = nil }
            return (state.waiter, state.timer)
        }
        timer?.cancel()
        waiter?.resume(returning: value)
    }
}
