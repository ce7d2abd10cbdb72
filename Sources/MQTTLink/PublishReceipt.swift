import Synchronization

/// A publish handed to libmosquitto by `MQTTClient.send`, whose end is awaited apart from
/// handing it over: a caller that publishes many messages in order hands each one over at
/// once (libmosquitto sends them in that order) and waits for the acknowledgements as they
/// come, instead of one broker round trip per message.
public final class PublishReceipt: Sendable {
    private enum Phase {
        case pending([CheckedContinuation<Void, any Error>])
        case done(MQTTError?)
    }

    private let phase = Mutex(Phase.pending([]))

    init() {}

    /// Returns when `publish` would have: QoS 0 written to the socket, QoS 1 acknowledged
    /// (PUBACK); throws what it would have thrown.
    public func acknowledged() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let outcome: MQTTError?? = phase.withLock { phase in
                switch phase {
                case .pending(let waiters):
                    phase = .pending(waiters + [waiter])
                    return .none
                case .done(let error):
                    return .some(error)
                }
            }
            switch outcome {
            case .none: break
            case .some(nil): waiter.resume()
            case .some(let error?): waiter.resume(throwing: error)
            }
        }
    }

    /// Whether it has ended (acknowledged or failed).
    public var isDone: Bool {
        phase.withLock { if case .done = $0 { true } else { false } }
    }

    func complete(_ error: MQTTError?) {
        let waiters = phase.withLock { phase -> [CheckedContinuation<Void, any Error>] in
            guard case .pending(let waiters) = phase else { return [] }
            phase = .done(error)
            return waiters
        }
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }
}

/// Who waits for a publish: a caller of `publish` or a `PublishReceipt` (no one waits for `forward`).
enum PublishWaiter: Sendable {
    case caller(CheckedContinuation<Void, any Error>)
    case receipt(PublishReceipt)

    func resume() {
        switch self {
        case .caller(let continuation): continuation.resume()
        case .receipt(let receipt): receipt.complete(nil)
        }
    }

    func resume(throwing error: MQTTError) {
        switch self {
        case .caller(let continuation): continuation.resume(throwing: error)
        case .receipt(let receipt): receipt.complete(error)
        }
    }
}
