import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: no broker, no clock; time is a Duration passed by hand.
@Suite("AvailabilityTracker")
struct AvailabilityTrackerTests {
    func tracker(every interval: Duration = .seconds(60)) -> AvailabilityTracker {
        AvailabilityTracker(configuration: .init(queryInterval: interval))
    }

    /// A tracker that has heard the device answer its first query at 1 s.
    func online() -> AvailabilityTracker {
        var t = tracker()
        _ = t.start(now: .zero)
        _ = t.receivedGoodFrame(now: .seconds(1))
        return t
    }

    @Test("starting sends a query and a good report makes the device online")
    func startAndOnline() {
        var t = tracker()
        #expect(t.start(now: .zero) == [.sendQuery])
        #expect(t.receivedGoodFrame(now: .milliseconds(20)) == [.changed(.online, hint: nil)])
        #expect(t.receivedGoodFrame(now: .milliseconds(30)).isEmpty)
    }

    @Test("a healthy device is queried once a minute and nothing more")
    func periodicQueries() {
        var t = online()
        #expect(t.nextWake == .seconds(60))
        #expect(t.tick(now: .seconds(59)).isEmpty)
        #expect(t.tick(now: .seconds(60)) == [.sendQuery])
        #expect(t.receivedGoodFrame(now: .seconds(61)).isEmpty)
        #expect(t.nextWake == .seconds(120))
    }

    @Test(
        "after a missed answer the device is asked again sooner, backing off, and is offline 30 s after the first miss")
    func offlineWithinThirtySeconds() {
        var t = online()
        #expect(t.tick(now: .seconds(60)) == [.sendQuery])
        // No answer within 5 s: asked again at once, then 10 s and 20 s later.
        #expect(t.tick(now: .seconds(65)) == [.sendQuery])
        #expect(t.nextWake == .seconds(70))
        #expect(t.tick(now: .seconds(70)).isEmpty)
        #expect(t.tick(now: .seconds(75)) == [.sendQuery])
        #expect(t.tick(now: .seconds(80)).isEmpty)
        #expect(t.nextWake == .seconds(90))
        #expect(t.tick(now: .seconds(89)).isEmpty)
        #expect(t.availability == .online)
        #expect(t.tick(now: .seconds(90)) == [.changed(.offline, hint: "no answer for 30 s")])
        #expect(t.tick(now: .seconds(95)) == [.sendQuery])
        #expect(t.receivedGoodFrame(now: .seconds(96)) == [.changed(.online, hint: nil)])
        #expect(t.nextWake == .seconds(155))
    }

    @Test("an offline device is still asked, never more often than once a query interval")
    func offlineKeepsAsking() {
        var t = online()
        var sent: [Int64] = []
        var now = Duration.seconds(60)
        while now <= .seconds(600) {
            if t.tick(now: now).contains(.sendQuery) { sent.append(now.components.seconds) }
            now += .seconds(1)
        }
        #expect(t.availability == .offline)
        let gaps = zip(sent.dropFirst(), sent).map { $0 - $1 }
        #expect(gaps.prefix(4) == [5, 10, 20, 40])
        #expect(gaps.dropFirst(4).allSatisfy { $0 == 60 })
    }

    @Test("one undecryptable frame is counted, not believed; three with no good frame between mean auth_failed")
    func keyMismatchNeedsSeveral() {
        var t = online()
        #expect(t.receivedKeyMismatch(now: .seconds(2)).isEmpty)
        #expect(t.receivedKeyMismatch(now: .seconds(3)).isEmpty)
        #expect(t.availability == .online)
        // A good frame in between starts the count again.
        _ = t.receivedGoodFrame(now: .seconds(4))
        #expect(t.receivedKeyMismatch(now: .seconds(5)).isEmpty)
        #expect(t.receivedKeyMismatch(now: .seconds(6)).isEmpty)
        #expect(t.receivedKeyMismatch(now: .seconds(7)) == [.changed(.authFailed, hint: "local key mismatch")])
        #expect(t.tick(now: .seconds(120)).contains(.sendQuery))
        #expect(t.availability == .authFailed)
        #expect(t.receivedGoodFrame(now: .seconds(121)) == [.changed(.online, hint: nil)])
    }

    @Test("a flood of undecryptable frames is remembered as the few that count, and still means auth_failed")
    func keyMismatchFlood() {
        var t = online()
        var changes: [AvailabilityTracker.Action] = []
        for index in 0..<10_000 { changes += t.receivedKeyMismatch(now: .milliseconds(2000 + index / 10)) }
        #expect(changes == [.changed(.authFailed, hint: "local key mismatch")])
        #expect(t.rememberedMismatches <= 3)
        #expect(t.receivedGoodFrame(now: .seconds(3)) == [.changed(.online, hint: nil)])
        #expect(t.receivedKeyMismatch(now: .seconds(4)).isEmpty, "one after a good frame is counted, not believed")
    }

    @Test("mismatches spread wider than the window never add up to auth_failed")
    func keyMismatchWindow() {
        var t = online()
        for minute in 1...10 {
            #expect(t.receivedKeyMismatch(now: .seconds(minute * 61)).isEmpty)
        }
        #expect(t.availability != .authFailed)
    }

    @Test("losing the broker makes the device offline and stops queries until restarted")
    func brokerLost() {
        var t = online()
        #expect(t.brokerLost() == [.changed(.offline, hint: "broker connection lost")])
        #expect(t.nextWake == nil)
        #expect(t.tick(now: .seconds(100)).isEmpty)
        #expect(t.start(now: .seconds(100)) == [.sendQuery])
    }
}
