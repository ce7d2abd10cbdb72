import Testing
import Timing
import YoullTestSupport

@Suite("OffsetClock")
struct OffsetClockTests {
    @Test("counts from the moment it was made and wakes a sleeper when the clock reaches its offset")
    func countsFromItsOrigin() async throws {
        let manual = ManualClock()
        manual.advance(by: .seconds(100))
        let clock = OffsetClock(manual)
        #expect(clock.now() == .zero)
        let sleeper = Task { try await clock.sleepUntil(.seconds(5)) }
        await manual.waitForSleepers(1)
        manual.advance(by: .seconds(4))
        #expect(clock.now() == .seconds(4))
        manual.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.now() == .seconds(5))
    }
}
