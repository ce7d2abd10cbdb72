/// An injected `Clock` seen as durations since the moment this value was made: what the
/// pure cores (command queues, availability, session timelines) count in. Built from
/// `any Clock<Duration>` by opening it once, so the rest of the code never handles an
/// existential instant; deadlines are absolute offsets on it, never sums of sleeps.
public struct OffsetClock: Sendable {
    /// Time since the origin.
    public let now: @Sendable () -> Duration
    /// Suspends until `now()` reaches the given offset; throws when the task is cancelled.
    public let sleepUntil: @Sendable (Duration) async throws -> Void

    public init(_ clock: any Clock<Duration>) {
        (now, sleepUntil) = Self.closures(clock)
    }

    private static func closures<C: Clock<Duration>>(
        _ clock: C
    ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let origin = clock.now
        return (
            { origin.duration(to: clock.now) },
            { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        )
    }
}

extension Duration {
    /// Whole milliseconds (rounded toward zero): how stored records and the bridge's
    /// `*_ms` fields count time. A span beyond what 64 bits of milliseconds hold (about 292
    /// million years, only ever made of stored values edited by hand) saturates.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowed) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !overflowed else { return seconds < 0 ? .min : .max }
        return total
    }
}
