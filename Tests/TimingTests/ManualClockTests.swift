import Testing
import YoullTestSupport

/// The test rig's manual clock: its waits for timers end when the timer is armed, and a
/// timer that never comes is an issue naming the wait, not a hung run.
@Suite("ManualClock")
struct ManualClockTests {
    @Test("a wait for a timer ends once it is armed, armed before or after the wait began")
    func armedTimerEndsTheWait() async throws {
        let clock = ManualClock()
        let early = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil) }
        await clock.waitForSleeper(dueAt: clock.now.advanced(by: .seconds(1)))
        async let waited: Void = clock.waitForSleeper(dueAt: clock.now.advanced(by: .seconds(15)))
        let late = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(15)), tolerance: nil) }
        await waited
        clock.advance(by: .seconds(15))
        try await early.value
        try await late.value
    }

    @Test("a wait for a timer that is never armed ends with an issue naming it and the timers that are")
    func unarmedTimerIsReported() async throws {
        let clock = ManualClock(armingGuard: .milliseconds(50))
        // Another timer, armed now or soon: listed if it is armed by the time the guard runs out.
        let other = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5)), tolerance: nil) }
        await withKnownIssue {
            await clock.waitForSleeper(dueAt: clock.now.advanced(by: .seconds(15)))
        } matching: { issue in
            let text = String(describing: issue)
            return text.contains("waited 0.05 seconds of real time for a timer due at 15.0 seconds")
                && (text.contains("armed: [5.0 seconds]") || text.contains("armed: []"))
        }
        other.cancel()
        await #expect(throws: CancellationError.self) { try await other.value }
    }
}
