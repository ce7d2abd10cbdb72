import Testing
import Timing

@testable import MQTTLink

/// Pure: the network loop's reconnect bookkeeping, on offsets handed in (no clock, no socket).
@Suite("reconnect state")
struct ReconnectStateTests {
    static let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.5)

    func fresh() -> ReconnectState {
        var state = ReconnectState(backoff: Self.backoff, connectTimeout: .seconds(5))
        state.connectRequested()
        return state
    }

    /// A state whose first connection got its CONNACK at 1 s.
    func connected() -> ReconnectState {
        var state = fresh()
        state.dialStarted(at: .zero)
        state.serviced(sessions: 1)
        return state
    }

    @Test("a first connection that fails is not retried: the caller hears the failure")
    func firstFailureNotRetried() {
        var state = fresh()
        #expect(state.dialFailed(at: .zero, unitRandom: 0) == nil)
        #expect(state.idle(at: .seconds(100)) == .waitForRequest)
        state.dialStarted(at: .seconds(1))
        #expect(state.closed(at: .seconds(2), unitRandom: 0) == .init(failedAttempt: true, retryAfter: nil))
        #expect(state.failures == 2)
    }

    @Test(
        "once a session was up, a lost connection is retried after the backoff's first step, and is no failed attempt")
    func lossRetried() {
        var state = connected()
        #expect(state.keepTrying && state.sessionUp)
        #expect(state.closed(at: .seconds(10), unitRandom: 0) == .init(failedAttempt: false, retryAfter: .seconds(1)))
        #expect(state.idle(at: .seconds(10.5)) == .wait(.seconds(0.5)))
        #expect(state.idle(at: .seconds(11)) == .dial)
        #expect(state.idle(at: .seconds(11)) == .waitForRequest, "a due retry is handed out once")
    }

    @Test("failed reconnects double the wait up to the cap, with jitter taken off; a session resets it")
    func backoffGrows() {
        var state = connected()
        _ = state.closed(at: .zero, unitRandom: 0)
        var waits: [Duration?] = []
        for _ in 0..<5 { waits.append(state.dialFailed(at: .zero, unitRandom: 0)) }
        #expect(waits == [.seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8)])
        #expect(state.dialFailed(at: .zero, unitRandom: 1) == .seconds(4), "half of the step is jitter")
        state.dialStarted(at: .zero)
        state.serviced(sessions: 2)
        #expect(state.failures == 0)
        #expect(state.closed(at: .zero, unitRandom: 0).retryAfter == .seconds(1))
    }

    @Test("a connection closed before its CONNACK, after sessions were up, is a failed attempt and backs off")
    func closedBeforeConnack() {
        var state = connected()
        _ = state.closed(at: .zero, unitRandom: 0)
        #expect(state.idle(at: .seconds(1)) == .dial)
        state.dialStarted(at: .seconds(1))
        state.serviced(sessions: 1)
        #expect(state.closed(at: .seconds(2), unitRandom: 0) == .init(failedAttempt: true, retryAfter: .seconds(2)))
    }

    @Test("reconnect-now makes a scheduled retry due at once, and does nothing when none is scheduled")
    func reconnectNow() {
        var state = fresh()
        state.reconnectRequested(at: .seconds(3))
        #expect(state.idle(at: .seconds(3)) == .waitForRequest)
        state = connected()
        _ = state.closed(at: .seconds(10), unitRandom: 0)
        state.reconnectRequested(at: .seconds(10.2))
        #expect(state.idle(at: .seconds(10.2)) == .dial)
    }

    @Test("a CONNACK overdue is reported once at the deadline, and polls never wait past it or past a second")
    func connackDeadline() {
        var state = fresh()
        #expect(state.pollTimeout(at: .zero) == .seconds(1))
        state.dialStarted(at: .zero)
        #expect(state.pollTimeout(at: .seconds(4.75)) == .seconds(0.25))
        let overdue1 = state.connackOverdue(at: .seconds(4.9))
        #expect(!overdue1)
        let overdue2 = state.connackOverdue(at: .seconds(5))
        #expect(overdue2)
        let overdue3 = state.connackOverdue(at: .seconds(6))
        #expect(!overdue3)
        #expect(state.pollTimeout(at: .seconds(6)) == .seconds(1))
    }

    @Test("a CONNACK in time clears the deadline; the same session count seen again changes nothing")
    func connackInTime() {
        var state = connected()
        let overdue4 = state.connackOverdue(at: .seconds(60))
        #expect(!overdue4)
        _ = state.closed(at: .zero, unitRandom: 0)
        state.dialStarted(at: .zero)
        state.serviced(sessions: 1)
        #expect(!state.sessionUp)
        let overdue5 = state.connackOverdue(at: .seconds(5))
        #expect(overdue5)
    }

    @Test("a new connect request starts over: failures forgotten, no retry pending, losses not retried until a session")
    func connectStartsOver() {
        var state = connected()
        _ = state.closed(at: .zero, unitRandom: 0)
        _ = state.dialFailed(at: .zero, unitRandom: 0)
        state.connectRequested()
        #expect(state.failures == 0 && !state.keepTrying && state.retryAt == nil)
        #expect(state.dialFailed(at: .zero, unitRandom: 0) == nil)
    }
}
