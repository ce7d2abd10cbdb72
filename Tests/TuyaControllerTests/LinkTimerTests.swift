import Testing
import Timing
import YoullTestSupport

@testable import TuyaController

/// A device link's one timer, on a manual clock: a later wake keeps the timer armed for an
/// earlier one (whose tick re-arms), so commands do not leave cancelled sleeps behind.
@Suite("LinkTimer")
struct LinkTimerTests {
    @Test("only an earlier wake replaces the armed timer; one no longer needed is kept until it fires")
    func replacement() {
        #expect(LinkTimer.replaces(armed: nil, with: .seconds(5)))
        #expect(!LinkTimer.replaces(armed: nil, with: nil))
        #expect(LinkTimer.replaces(armed: .seconds(5), with: .seconds(4)))
        #expect(!LinkTimer.replaces(armed: .seconds(5), with: nil))
        #expect(!LinkTimer.replaces(armed: .seconds(5), with: .seconds(5)))
        #expect(!LinkTimer.replaces(armed: .seconds(5), with: .seconds(60)))
    }

    @Test("a timer armed for 5 s and then asked for 60 s still fires at 5 s", .timeLimit(.minutes(1)))
    func keepsEarlierWake() async {
        let clock = ManualClock()
        let offsets = OffsetClock(clock)
        let (fires, fired) = AsyncStream.makeStream(of: Void.self)
        var timer = LinkTimer()
        timer.arm(for: .seconds(5), clock: offsets) { fired.yield() }
        await clock.waitForSleepers(1)
        timer.arm(for: .seconds(60), clock: offsets) { fired.yield() }
        clock.advance(by: .seconds(5))
        var iterator = fires.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        timer.cancel()
    }
}
