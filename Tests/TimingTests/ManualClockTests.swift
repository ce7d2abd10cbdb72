import Testing
import Timing
import YoullTestSupport

/// The test rig's manual clock: its waits for timers end when the timer is armed, and a
/// timer that never comes is an issue naming the wait, not a hung run.
@Suite("ManualClock")
struct ManualClockTests {
    @Test("a wait for a timer ends once it is armed, armed before or after the wait began")
    func armedTimerEndsTheWait() async throws {
        let clock = ManualClock()
        let timers = OffsetClock(clock)
        let early = Task { try await timers.sleepUntil(.seconds(1)) }
        await clock.waitForSleeper(dueAt: clock.now.advanced(by: .seconds(1)))
        async let waited: Void = clock.waitForSleeper(dueAt: clock.now.advanced(by: .seconds(15)))
        let late = Task { try await timers.sleepUntil(.seconds(15)) }
        await waited
        clock.advance(by: .seconds(15))
        try await early.value
        try await late.value
    }

    @Test(
        "a wait for a timer that is never armed ends, once the guard's time has passed, with an issue naming it and the timers that are"
    )
    func unarmedTimerIsReported() async throws {
        // The guard is an event the test fires itself: no time passes.
        let (guards, armedGuard) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        let clock = ManualClock(
            armingGuard: .seconds(60),
            guardTimer: .init { _, fire in
                armedGuard.yield(fire)
                return {}
            })
        let other = Task { try await OffsetClock(clock).sleepUntil(.seconds(5)) }
        await clock.waitForSleepers(1)
        await withKnownIssue {
            async let waited: Void = clock.waitForSleeper(dueAt: clock.now.advanced(by: .seconds(15)))
            // Every guard the clock arms fires at once; only a wait still going gives up.
            let firing = Task { for await fire in guards { fire() } }
            defer { firing.cancel() }
            await waited
        } matching: { issue in
            let text = String(describing: issue)
            return text.contains("gave up after 60.0 seconds waiting for a timer due at 15.0 seconds")
                && text.contains("armed: [5.0 seconds]")
        }
        other.cancel()
        await #expect(throws: CancellationError.self) { try await other.value }
    }
}
