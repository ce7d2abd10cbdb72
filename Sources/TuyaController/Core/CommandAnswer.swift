import Synchronization
import TuyaCore

/// The answer to one command: the state the device confirmed, or why there is none.
///
/// The link settles it on its own executor; the caller waits for it off the link's (see
/// `DeviceLinkDriver.send`). A continuation kept by the link instead would resume the
/// caller on the link's executor first: for a LAN link, whose executor is its connection's
/// event loop thread, that was a wake-up of the pool, a hop back to the loop and a second
/// wake-up of the pool for every command.
final class CommandAnswer: Sendable {
    private enum State {
        case pending(CheckedContinuation<DeviceState, any Error>?)
        case settled(Result<DeviceState, any Error>)
    }

    private let state = Mutex(State.pending(nil))

    /// Settles the answer; the first result counts, later ones are ignored.
    func settle(_ result: Result<DeviceState, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<DeviceState, any Error>? in
            guard case .pending(let continuation) = state else { return nil }
            state = .settled(result)
            return continuation
        }
        // Resumed outside the lock: resuming enqueues the caller, which may run at once.
        waiting?.resume(with: result)
    }

    /// The confirmed state, once the link settles the answer (at once if it has).
    var value: DeviceState {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let settled: Result<DeviceState, any Error>? = state.withLock { state in
                    switch state {
                    case .settled(let result):
                        return result
                    case .pending:
                        state = .pending(continuation)
                        return nil
                    }
                }
                if let settled { continuation.resume(with: settled) }
            }
        }
    }
}
