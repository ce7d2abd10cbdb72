import Testing
import Timing

/// Stored records and the bridge count time in whole milliseconds.
@Suite("Timing: whole milliseconds")
struct WholeMillisecondsTests {
    @Test("a span too long for 64 bits of milliseconds saturates instead of stopping the process")
    func saturates() {
        let huge = Duration.seconds(Int64.max)
        #expect(huge.wholeMilliseconds == .max)
        #expect((.zero - huge).wholeMilliseconds == .min)
        #expect(Duration.seconds(10_000_000).wholeMilliseconds == 10_000_000_000)
        #expect(Duration.milliseconds(1_500).wholeMilliseconds == 1_500)
        #expect(Duration.microseconds(-1_500).wholeMilliseconds == -1)
    }
}
