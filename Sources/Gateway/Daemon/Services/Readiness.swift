import ServiceLifecycle
import Synchronization

/// A one-time signal between the daemon's services: a service that others start after
/// (the bridge, the timer, the metrics listener) says whether it came up, and those
/// waiting learn it once. Services run at once in the `ServiceGroup`; this is how they
/// start in order, while the group still stops them in reverse order.
final class Readiness: Sendable {
    private struct State {
        var outcome: Bool?
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// The service is up.
    func succeed() { decide(true) }

    /// The service will not come up (it failed, or stopped first).
    func fail() { decide(false) }

    private func decide(_ outcome: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Whether the service came up; false also when the calling task is cancelled first,
    /// which leaves the outcome for everyone else as it will be.
    func wait() async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                let known = state.withLock { state -> Bool? in
                    if let outcome = state.outcome { return outcome }
                    if Task.isCancelled { return false }
                    state.waiters[id] = waiter
                    return nil
                }
                if let known { waiter.resume(returning: known) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }

    /// `wait()`, given up when the service group asks the caller to stop first.
    func waitUnlessStopping() async -> Bool {
        await cancelWhenGracefulShutdown { await self.wait() }
    }
}
