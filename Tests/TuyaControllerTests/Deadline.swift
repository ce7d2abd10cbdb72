import Foundation
import Synchronization

struct DeadlineExceeded: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `body` and fails if it has not finished within `seconds` of real time. The guard
/// is a Dispatch timer, not a sleep: the test never waits for time to pass, only bounds
/// how long it waits for something to happen.
func withDeadline<T: Sendable>(
    _ seconds: Double = 10, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    // nil continuation + false: not armed yet; true: cancelled or fired, resume at once.
    let gate = Gate()
    @Sendable func release() {
        let waiter = gate.state.withLock { state in
            state.done = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let armed = gate.state.withLock { state in
                        if state.done { return false }
                        state.waiter = continuation
                        return true
                    }
                    if armed {
                        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { release() }
                    } else {
                        continuation.resume()
                    }
                }
            } onCancel: {
                release()
            }
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(what: what) }
        return value
    }
}

extension AsyncStream where Element: Sendable {
    /// The first element matching `predicate`, or a `DeadlineExceeded` after `seconds`.
    func first(
        within seconds: Double = 10, _ what: String, where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element {
        let stream = self
        return try await withDeadline(seconds, what) {
            for await element in stream where predicate(element) { return element }
            throw DeadlineExceeded(what: "\(what) (stream ended)")
        }
    }
}

/// The deadline's timer state, shared between the timer, the cancel handler and the waiter.
private final class Gate: Sendable {
    /// done: cancelled or fired, resume at once; waiter: the armed continuation.
    let state = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
}
