/// An injected `Clock` seen as durations since the moment the link started, which is
/// what the pure cores count in. Built from `any Clock<Duration>` by opening it once,
/// so the rest of the code never handles an existential instant.
struct LinkClock: Sendable {
    /// Time since the origin.
    let now: @Sendable () -> Duration
    /// Suspends until `now()` reaches the given offset; throws when cancelled.
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
