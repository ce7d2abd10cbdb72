/// How long to wait before retrying something that failed: `initial`, doubling after each
/// failure in a row up to `maximum`, each wait shortened by up to `jitter` of itself so a
/// fleet restarted together does not retry in lockstep. One type for every retry in the
/// gateway: broker reconnects, device links (LAN, BLE) and webhook deliveries.
///
/// Pure: the random part comes in as `unitRandom`, so tests fix it.
public struct Backoff: Hashable, Sendable {
    /// The wait after the first failure.
    public var initial: Duration
    /// The cap for the doubling wait.
    public var maximum: Duration
    /// Fraction (0...1) of each wait that may be randomised away: 0.2 waits 80–100 %.
    public var jitter: Double

    public init(initial: Duration, maximum: Duration, jitter: Double = 0) {
        self.initial = max(initial, .zero)
        self.maximum = max(maximum, self.initial)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait before retry number `retry`, counting from 0 (0 → `initial`, 1 → twice
    /// that, …; a negative number counts as 0). `unitRandom` (0..<1) picks how much of
    /// `jitter` is taken away.
    public func delay(retry: Int, unitRandom: Double = 0) -> Duration {
        let doublings = min(max(retry, 0), 62)
        var step = initial
        for _ in 0..<doublings {
            step *= 2
            if step >= maximum { break }
        }
        step = min(step, maximum)
        let factor = 1 - jitter * min(max(unitRandom, 0), 1)
        return step * factor
    }
}

extension Backoff {
    /// Broker reconnects: 1 s doubling to 30 s, 20 % jitter.
    public static let broker = Backoff(initial: .seconds(1), maximum: .seconds(30), jitter: 0.2)
    /// A device link that dropped (BLE, LAN): 1 s doubling to 60 s, 20 % jitter.
    public static let deviceLink = Backoff(initial: .seconds(1), maximum: .seconds(60), jitter: 0.2)
    /// Webhook deliveries: 1 s doubling to 5 min, no jitter (one gateway, one receiver).
    public static let delivery = Backoff(initial: .seconds(1), maximum: .seconds(300))
}

extension Duration {
    /// A wait as a person reads it in a log line: `1.7 s` below ten seconds, `12 s` from
    /// there (never `1.734628 seconds`).
    public var roundedText: String {
        let (seconds, attoseconds) = components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        if value < 10 { return "\((value * 10).rounded() / 10) s" }
        return "\(Int(value.rounded())) s"
    }
}
