/// How long to wait before reconnecting a BLE link: doubling from `initial` up to
/// `maximum`, so a device out of range is retried without hammering the adapter.
struct BLEBackoff: Hashable, Sendable {
    var initial: Duration = .seconds(1)
    var maximum: Duration = .seconds(60)

    /// The delay before retry number `attempt` (0 for the first retry).
    func delay(attempt: Int) -> Duration {
        var delay = initial
        for _ in 0..<max(0, attempt) {
            delay = delay * 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }
}
