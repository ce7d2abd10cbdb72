import Synchronization

/// Runs `operation` and gives up after `timeout` on `clock`, throwing `onTimeout`.
///
/// Not a task group: a group waits for every child before it returns, and a broker call
/// that never completes (a paused broker never sends SUBACK) would hold the deadline
/// hostage. Here the first of the two to finish resumes the caller; the operation is
/// cancelled and may finish later in the background.
func withDeadline<T: Sendable>(
    _ timeout: Duration, clock: any Clock<Duration>, onTimeout: BridgeClientError,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Outcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.install(continuation)
            let work = Task {
                do {
                    outcome.finish(.success(try await operation()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            let timer = Task {
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    return
                }
                outcome.finish(.failure(onTimeout))
                work.cancel()
            }
            outcome.onFinish {
                timer.cancel()
                work.cancel()
            }
        }
    } onCancel: {
        outcome.finish(.failure(CancellationError()))
    }
}

/// Resumes one continuation exactly once, whoever finishes first.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.cleanup = cleanup
            return false
        }
        if finished { cleanup() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, cleanup) = state.withLock {
            state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(with: result)
        cleanup?()
    }
}
