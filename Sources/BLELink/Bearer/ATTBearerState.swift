import Synchronization

/// What an `ATTBearer`'s actor and its channel's reader thread both read: whether the bearer has
/// ended (and why), and the MTU in force.
final class ATTBearerState: Sendable {
    private struct Values {
        /// Why the bearer ended (the first reason wins); nil while it runs.
        var closedBecause: ATTError?
        var mtu = ATTBearer.defaultMTU
    }

    private let values = Mutex(Values())

    var closedBecause: ATTError? { values.withLock { $0.closedBecause } }
    var isRunning: Bool { values.withLock { $0.closedBecause == nil } }

    var mtu: UInt16 {
        get { values.withLock { $0.mtu } }
        set { values.withLock { $0.mtu = newValue } }
    }

    /// Records `error` as the reason unless there is one already, which it returns.
    func close(because error: ATTError) -> ATTError? {
        values.withLock { values in
            if let closed = values.closedBecause { return closed }
            values.closedBecause = error
            return nil
        }
    }

    /// Hands `notification` to `sink` unless the bearer has ended. The check and the call hold
    /// the lock `close(because:)` takes, so nothing reaches the sink after the bearer's end
    /// (`shutDown` finishes the sink after closing).
    @discardableResult
    func notify(_ notification: ATTHandleValueNotification, to sink: ATTBearer.NotificationSink) -> Bool {
        values.withLock { values in
            guard values.closedBecause == nil else { return false }
            sink.notify(notification)
            return true
        }
    }
}
