/// An injected `Clock` seen as durations since the runner was created. Built from
/// `any Clock<Duration>` by opening it once, so the runner never handles an existential
/// instant; deadlines are absolute offsets on it, never sums of sleeps.
struct SessionClock: Sendable {
    let now: @Sendable () -> Duration
    /// Suspends until `now()` reaches the offset; throws when the task is cancelled.
    let sleepUntil: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
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
