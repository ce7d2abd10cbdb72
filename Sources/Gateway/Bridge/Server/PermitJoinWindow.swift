/// The pairing window (`permit_join`) as a value: when it closes, on the bridge's clock
/// seen as offsets (`OffsetClock`). The server arms the timer and closes it when it fires;
/// `bridge/info` and `health_check` read it.
struct PermitJoinWindow: Hashable, Sendable {
    /// When the window closes; nil while it is closed.
    private(set) var closesAt: Duration?

    var isOpen: Bool { closesAt != nil }

    /// Opens the window (again) for `duration` from `now`.
    mutating func open(for duration: Duration, now: Duration) {
        closesAt = now + duration
    }

    /// Closes the window. False when it was already closed: nothing to announce.
    mutating func close() -> Bool {
        defer { closesAt = nil }
        return closesAt != nil
    }

    /// Whole seconds until it closes, never negative; nil while closed.
    func secondsLeft(now: Duration) -> Int64? {
        closesAt.map { max(0, ($0 - now).components.seconds) }
    }
}
