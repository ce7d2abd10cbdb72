import Foundation
import Synchronization

/// A wait that did not end in time; names what was awaited.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }

    public init(what: String) { self.what = what }
}

/// Runs `body` and fails with `DeadlineExceeded` if it has not finished within `seconds` of
/// real time. The guard is a Dispatch timer, not a sleep: the test never waits for time to
/// pass, only bounds how long it waits for something to happen. The one deadline of the
/// test rig: waits on streams, on daemons and on other processes all go through it.
public func withDeadline<T: Sendable>(
    _ seconds: Double = 10, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let gate = FirstResult<Void>()
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    // Cancelled before it got here: the gate has its value and resumes it at once.
                    gate.arm(continuation)
                    _ = GuardTimer.dispatch.arm(.seconds(seconds)) { gate.offer(()) }
                }
            } onCancel: {
                gate.offer(())
            }
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(what: what) }
        return value
    }
}

/// `withDeadline` with the bound as a `Duration`.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let (seconds, attoseconds) = timeout.components
    return try await withDeadline(Double(seconds) + Double(attoseconds) / 1e18, what, body)
}

extension AsyncSequence where Self: Sendable, Element: Sendable, Failure == Never {
    /// The first element matching `predicate`, or a `DeadlineExceeded` after `seconds`.
    public func first(
        within seconds: Double = 10, _ what: String, where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element {
        let stream = self
        return try await withDeadline(seconds, what) {
            for await element in stream where predicate(element) { return element }
            throw DeadlineExceeded(what: "\(what) (stream ended)")
        }
    }
}

/// The rig's one real-time timer: `arm(delay, fire)` calls `fire` once `delay` has passed
/// and returns what cancels it. An event, not a sleeping task: waits are bounded by it, and
/// no test waits for it unless something is wrong. A test of a guard injects its own.
public struct GuardTimer: Sendable {
    let arm: @Sendable (Duration, @escaping @Sendable () -> Void) -> @Sendable () -> Void

    public init(arm: @escaping @Sendable (Duration, @escaping @Sendable () -> Void) -> @Sendable () -> Void) {
        self.arm = arm
    }

    /// A Dispatch timer on real time.
    public static let dispatch = GuardTimer { delay, fire in
        let (seconds, attoseconds) = delay.components
        let flag = CancelFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) {
            if !flag.isSet { fire() }
        }
        return { flag.set() }
    }
}

/// Set once, read by the timer that may fire after it.
private final class CancelFlag: Sendable {
    private let flag = Mutex(false)

    var isSet: Bool { flag.withLock { $0 } }

    func set() { flag.withLock { $0 = true } }
}

extension Task where Success: Sendable, Failure == any Error {
    /// The task's result, or `DeadlineExceeded` if it has not finished within `timeout` of
    /// real time. Unlike `withDeadline`, which waits for its body to honour cancellation,
    /// this returns at the deadline whatever the task does: for a task that may be hung in
    /// code that never looks at cancellation (a daemon's shutdown). The task is cancelled then.
    public func value(within timeout: Duration, _ what: String) async throws -> Success {
        let gate = FirstResult<Result<Success, any Error>>()
        let result = await withCheckedContinuation { continuation in
            gate.arm(continuation)
            Task<Void, Never> { gate.offer(await Result(catching: { try await self.value })) }
            _ = GuardTimer.dispatch.arm(timeout) { gate.offer(.failure(DeadlineExceeded(what: what))) }
        }
        if case .failure(let error) = result, error is DeadlineExceeded { cancel() }
        return try result.get()
    }
}

/// Resumes one waiter with the first of the values offered to it, whichever comes first:
/// the waiter (then it waits) or the value (then the waiter is resumed as it arrives).
private final class FirstResult<Value: Sendable>: Sendable {
    private let state = Mutex<(offered: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    func arm(_ continuation: CheckedContinuation<Value, Never>) {
        let offered = state.withLock { state -> Value? in
            if state.offered == nil { state.waiter = continuation }
            return state.offered
        }
        if let offered { continuation.resume(returning: offered) }
    }

    func offer(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.offered == nil else { return nil }
            state.offered = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }
}
