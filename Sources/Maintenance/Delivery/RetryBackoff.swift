/// Capped exponential backoff: `initial`, then doubling after each failed attempt, never
/// more than `maximum`. Deterministic (no jitter): one gateway retries one receiver.
public struct RetryBackoff: Hashable, Sendable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(300)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The wait after `attempts` failed attempts in a row (1 → `initial`).
    public func delay(afterAttempts attempts: Int) -> Duration {
        var delay = initial
        var step = 1
        while step < attempts, delay < maximum {
            delay *= 2
            step += 1
        }
        return min(delay, maximum)
    }
}
