import Testing

@testable import TuyaController

/// The replay guard for device frames, driven by hand with unix seconds.
@Suite("FrameFreshness")
struct FrameFreshnessTests {
    static let now: Int64 = 1_700_000_000

    @Test("a frame whose t is years away from the gateway's clock is refused, one within the window accepted")
    func windowAroundTheGatewayClock() {
        var guard_ = FrameFreshness()
        #expect(guard_.check(time: 0, sequence: 10, now: Self.now) == .rejected(.timeOutsideWindow))
        #expect(
            guard_.check(time: Self.now + 3 * 365 * 86_400, sequence: 11, now: Self.now + 1)
                == .rejected(.timeOutsideWindow))
        #expect(guard_.check(time: Self.now - 30, sequence: 12, now: Self.now + 2) == .fresh(emittedAt: Self.now + 2))
    }

    @Test("a replay carries an old t or an old sequence and is refused once newer frames were heard")
    func replaysAreRefused() {
        var guard_ = FrameFreshness()
        #expect(guard_.check(time: Self.now, sequence: 500, now: Self.now) == .fresh(emittedAt: Self.now))
        #expect(
            guard_.check(time: Self.now + 60, sequence: 501, now: Self.now + 60) == .fresh(emittedAt: Self.now + 60))
        // The first frame again, verbatim: same t, same sequence.
        #expect(guard_.check(time: Self.now, sequence: 500, now: Self.now + 70) == .rejected(.timeWentBack))
        // The same frame with its (CRC-only) sequence rewritten forward: the t still gives it away.
        #expect(guard_.check(time: Self.now, sequence: 900, now: Self.now + 71) == .rejected(.timeWentBack))
        // The latest frame repeated: its t is not old, but its sequence did not move.
        #expect(guard_.check(time: Self.now + 60, sequence: 501, now: Self.now + 72) == .rejected(.sequenceWentBack))
        #expect(
            guard_.check(time: Self.now + 75, sequence: 502, now: Self.now + 75) == .fresh(emittedAt: Self.now + 75))
    }

    @Test("a device that restarted begins a new sequence with a newer t and is accepted")
    func restartIsNotAReplay() {
        var guard_ = FrameFreshness()
        #expect(guard_.check(time: Self.now, sequence: 40_000, now: Self.now) == .fresh(emittedAt: Self.now))
        #expect(guard_.check(time: Self.now + 20, sequence: 17, now: Self.now + 20) == .fresh(emittedAt: Self.now + 20))
        #expect(guard_.check(time: Self.now + 21, sequence: 18, now: Self.now + 21) == .fresh(emittedAt: Self.now + 21))
    }

    @Test("the sequence wraps at 2^32 without reading as going back")
    func sequenceWraps() {
        #expect(FrameFreshness.follows(0, UInt32.max))
        #expect(FrameFreshness.follows(5, 4))
        #expect(!FrameFreshness.follows(4, 5))
        #expect(!FrameFreshness.follows(7, 7))
    }

    @Test("a device whose clock is off is learned from two agreeing frames and then judged around its own time")
    func learnsAnOffClock() {
        var guard_ = FrameFreshness()
        let deviceClock: Int64 = 86_400  // a device that never synced: 1970 plus its uptime
        #expect(guard_.check(time: deviceClock, sequence: 3, now: Self.now) == .rejected(.timeOutsideWindow))
        #expect(
            guard_.check(time: deviceClock + 60, sequence: 4, now: Self.now + 60) == .fresh(emittedAt: Self.now + 60))
        #expect(guard_.offset == deviceClock - Self.now)
        #expect(
            guard_.check(time: deviceClock + 120, sequence: 5, now: Self.now + 121) == .fresh(emittedAt: Self.now + 121)
        )
        // A frame stamped with the gateway's own time is now far from this device's timeline.
        #expect(guard_.check(time: Self.now + 130, sequence: 6, now: Self.now + 130) == .rejected(.timeOutsideWindow))
        // A replay of its first frame is refused too.
        #expect(guard_.check(time: deviceClock + 60, sequence: 9, now: Self.now + 140) == .rejected(.timeWentBack))
    }

    @Test("two frames that do not agree on the device's clock teach nothing")
    func disagreeingFramesTeachNothing() {
        var guard_ = FrameFreshness()
        #expect(guard_.check(time: 0, sequence: 1, now: Self.now) == .rejected(.timeOutsideWindow))
        #expect(guard_.check(time: 5_000, sequence: 2, now: Self.now + 1) == .rejected(.timeOutsideWindow))
        #expect(guard_.check(time: 4_000, sequence: 3, now: Self.now + 2) == .rejected(.timeOutsideWindow))
        #expect(guard_.offset == nil)
    }

    /// `t` comes from inside a device's frame: any 64-bit integer. Whatever it is, the frame is
    /// judged (never a trap on the arithmetic), an absurd time is never learned as the
    /// device's clock, and the device's next sane frame is accepted.
    @Test("t at the ends of the 64-bit range is refused without a trap and teaches nothing")
    func extremeTimes() {
        let hostile: [Int64] = [
            .max, .min, 9_000_000_000_000_000_000, -9_000_000_000_000_000_000, Self.now &- .min, .max - 1, -1,
        ]
        for first in hostile {
            for second in hostile {
                var guard_ = FrameFreshness()
                #expect(guard_.check(time: first, sequence: 1, now: Self.now) == .rejected(.timeOutsideWindow))
                #expect(guard_.check(time: second, sequence: 2, now: Self.now + 1) == .rejected(.timeOutsideWindow))
                #expect(guard_.offset == nil, "t \(first) then \(second) taught an offset")
                #expect(
                    guard_.check(time: Self.now + 2, sequence: 3, now: Self.now + 2) == .fresh(emittedAt: Self.now + 2))
            }
        }
        // Two absurd frames that agree with each other (rule 4) do not make a timeline either.
        var guard_ = FrameFreshness()
        _ = guard_.check(time: 9_000_000_000_000_000_000, sequence: 1, now: Self.now)
        #expect(
            guard_.check(time: 9_000_000_000_000_000_001, sequence: 2, now: Self.now + 1)
                == .rejected(.timeOutsideWindow))
        #expect(guard_.offset == nil)
    }
}
