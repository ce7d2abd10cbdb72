import Synchronization

/// What an `ATTBearer`'s actor and its channel's reader thread both read: whether the bearer has
/// ended (and why), and the MTU in force.
///
/// A packet sent reads the MTU and whether the bearer is running, and those are atomics, not the
/// lock: the reader thread holds the lock while it hands a notification on, and handing it on
/// can wake the very task that sends next. On one CPU that task then ran while the reader thread
/// was paused holding the lock, and spun on it (8 % of a DP write's CPU time, measured with
/// `taskset -c 0 youll-bench ble --dpwrite-only`).
final class ATTBearerState: Sendable {
    /// Why the bearer ended (the first reason wins); nil while it runs.
    private let reason = Mutex<ATTError?>(nil)
    /// `reason != nil`, readable without the lock; set under it.
    private let closed = Atomic<Bool>(false)
    private let agreedMTU = Atomic<UInt16>(ATTBearer.defaultMTU)

    var closedBecause: ATTError? { closed.load(ordering: .acquiring) ? reason.withLock { $0 } : nil }
    var isRunning: Bool { !closed.load(ordering: .acquiring) }

    var mtu: UInt16 {
        get { agreedMTU.load(ordering: .relaxed) }
        set { agreedMTU.store(newValue, ordering: .relaxed) }
    }

    /// Records `error` as the reason unless there is one already, which it returns.
    func close(because error: ATTError) -> ATTError? {
        reason.withLock { reason in
            if let first = reason { return first }
            reason = error
            closed.store(true, ordering: .releasing)
            return nil
        }
    }

    /// Hands `notification` to `sink` unless the bearer has ended. The check and the call hold
    /// the lock `close(because:)` takes, so nothing reaches the sink after the bearer's end
    /// (`shutDown` finishes the sink after closing).
    @discardableResult
    func notify(_ notification: ATTHandleValueNotification, to sink: ATTBearer.NotificationSink) -> Bool {
        reason.withLock { reason in
            guard reason == nil else { return false }
            sink.notify(notification)
            return true
        }
    }
}
