/// Capped exponential backoff with jitter for reconnects. Our own loop applies it (not
/// `mosquitto_reconnect_delay_set`, which has no jitter and waits ≥ 1 s before the first retry:
/// INTEROP.md), so a fleet of gateways restarted with their broker does not reconnect in lockstep.
public struct MQTTReconnectPolicy: Sendable, Equatable {
    /// Delay before the first retry after a connection is lost.
    public var minDelay: Duration
    /// Cap for the doubling delay.
    public var maxDelay: Duration
    /// Fraction (0...1) of each delay that is randomised away: 0.2 waits 80–100 % of the step.
    public var jitter: Double

    public init(
        minDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30), jitter: Double = 0.2
    ) {
        self.minDelay = minDelay
        self.maxDelay = max(maxDelay, minDelay)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait before retry number `failures + 1`. `unitRandom` is in 0..<1 and injected so
    /// tests can fix it: the step is `minDelay × 2^failures` capped at `maxDelay`, then shortened
    /// by up to `jitter` of itself.
    public func delay(afterFailures failures: Int, unitRandom: Double) -> Duration {
        let doublings = min(max(failures, 0), 30)
        var step = minDelay * (1 << doublings)
        if step > maxDelay || step < minDelay { step = maxDelay }
        let factor = 1 - jitter * min(max(unitRandom, 0), 1)
        return step * factor
    }
}
