import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: no broker, no clock; time is a Duration passed by hand.
@Suite("CommandQueue")
struct CommandQueueTests {
    let power = Fixtures.dp(1)
    let bright = Fixtures.dp(2)
    let temp = Fixtures.dp(3)

    func queue(gap: Duration = .milliseconds(300), timeout: Duration = .seconds(5)) -> CommandQueue {
        CommandQueue(configuration: .init(frameGap: gap, confirmationTimeout: timeout))
    }

    @Test("the first write goes out at once, with every DP of the command in one frame")
    func firstWriteIsImmediate() {
        var q = queue()
        let (_, actions) = q.enqueue([power: .bool(true), bright: .value(100)], now: .zero)
        #expect(actions == [.send([power: .bool(true), bright: .value(100)])])
        #expect(q.awaiting == [power: .bool(true), bright: .value(100)])
    }

    @Test("a write-only DP goes out in the frame but is neither awaited nor waited for by its ticket")
    func neverReportedDPs() {
        let reset = Fixtures.dp(102)
        var q = CommandQueue(configuration: .init(neverReported: [reset]))
        let (only, onlyActions) = q.enqueue([reset: .bool(true)], now: .zero)
        #expect(onlyActions == [.send([reset: .bool(true)]), .confirmed(only)])
        #expect(q.awaiting.isEmpty && !q.hasTickets)
        // With a reported DP, the ticket waits for that one alone.
        let (mixed, mixedActions) = q.enqueue([reset: .bool(true), power: .bool(false)], now: .seconds(1))
        #expect(mixedActions == [.send([reset: .bool(true), power: .bool(false)])])
        #expect(q.awaiting == [power: .bool(false)])
        #expect(q.receiveReport([power: .bool(false)], now: .seconds(2)) == [.confirmed(mixed)])
    }

    @Test("writes within the frame gap wait, coalesce per DP (latest wins) and leave in one frame")
    func coalescesWithinGap() {
        var q = queue()
        _ = q.enqueue([power: .bool(true)], now: .zero)
        let (_, a1) = q.enqueue([bright: .value(50)], now: .milliseconds(10))
        let (_, a2) = q.enqueue([bright: .value(80), temp: .value(3)], now: .milliseconds(20))
        #expect(a1.isEmpty && a2.isEmpty)
        #expect(q.nextWake == .milliseconds(300))
        #expect(q.tick(now: .milliseconds(299)).isEmpty)
        #expect(q.tick(now: .milliseconds(300)) == [.send([bright: .value(80), temp: .value(3)])])
    }

    @Test("frames are never closer than the gap, even when writes keep arriving")
    func enforcesGap() {
        var q = queue(gap: .milliseconds(300))
        var sentAt: [Duration] = []
        var now = Duration.zero
        for step in 0..<40 {
            now = .milliseconds(step * 25)
            let (_, actions) = q.enqueue([bright: .value(Int32(30 + step))], now: now)
            if actions.contains(where: { if case .send = $0 { true } else { false } }) { sentAt.append(now) }
            if q.tick(now: now).contains(where: { if case .send = $0 { true } else { false } }) { sentAt.append(now) }
        }
        #expect(sentAt.count >= 3)
        for (earlier, later) in zip(sentAt, sentAt.dropFirst()) {
            #expect(later - earlier >= .milliseconds(300))
        }
    }

    @Test("a report carrying the written values confirms the ticket")
    func reportConfirms() {
        var q = queue()
        let (ticket, _) = q.enqueue([power: .bool(true), bright: .value(100)], now: .zero)
        #expect(q.receiveReport([power: .bool(true)], now: .milliseconds(5)).isEmpty)
        #expect(q.receiveReport([bright: .value(100), temp: .value(9)], now: .milliseconds(6)) == [.confirmed(ticket)])
        #expect(q.pending.isEmpty)
    }

    @Test("a report with a different value confirms nothing")
    func differentValueDoesNotConfirm() {
        var q = queue()
        _ = q.enqueue([bright: .value(100)], now: .zero)
        #expect(q.receiveReport([bright: .value(99)], now: .milliseconds(5)).isEmpty)
        #expect(q.pending == [bright: .value(100)])
    }

    @Test("an unconfirmed ticket times out at its deadline and its DPs stay pending")
    func timeoutKeepsPending() {
        var q = queue(timeout: .seconds(5))
        let (ticket, _) = q.enqueue([power: .bool(false), bright: .value(40)], now: .zero)
        #expect(q.nextWake == .seconds(5))
        #expect(q.tick(now: .milliseconds(4999)).isEmpty)
        #expect(q.tick(now: .seconds(5)) == [.timedOut(ticket, pending: [power, bright])])
        #expect(q.pending == [power: .bool(false), bright: .value(40)])
        #expect(q.nextWake == nil)
    }

    @Test("an earlier ticket superseded on the same DP is confirmed by the later value")
    func supersededTicketConfirmedByLatest() {
        var q = queue()
        let (first, _) = q.enqueue([bright: .value(50)], now: .zero)
        let (second, _) = q.enqueue([bright: .value(60)], now: .milliseconds(10))
        // The old value arriving does not settle anyone: 60 is still to be written.
        #expect(q.receiveReport([bright: .value(50)], now: .milliseconds(20)).isEmpty)
        #expect(q.tick(now: .milliseconds(300)) == [.send([bright: .value(60)])])
        #expect(
            q.receiveReport([bright: .value(60)], now: .milliseconds(310)) == [.confirmed(first), .confirmed(second)])
    }

    @Test("while paused nothing is sent; resuming sends the coalesced frame")
    func pauseHoldsFrames() {
        var q = queue()
        q.pause()
        let (_, actions) = q.enqueue([power: .bool(true)], now: .zero)
        #expect(actions.isEmpty)
        #expect(q.tick(now: .seconds(1)).isEmpty)
        #expect(q.resume(now: .seconds(1)) == [.send([power: .bool(true)])])
    }

    @Test("an empty command is confirmed at once without a frame")
    func emptyCommand() {
        var q = queue()
        let (ticket, actions) = q.enqueue([:], now: .zero)
        #expect(actions == [.confirmed(ticket)])
    }
}
