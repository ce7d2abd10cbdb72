import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: no broker, no clock; time is a Duration passed by hand.
@Suite("AvailabilityTracker")
struct AvailabilityTrackerTests {
    func tracker(every interval: Duration = .seconds(30), misses: Int = 3) -> AvailabilityTracker {
        AvailabilityTracker(configuration: .init(queryInterval: interval, maxUnansweredQueries: misses))
    }

    @Test("starting sends a query and a good report makes the device online")
    func startAndOnline() {
        var t = tracker()
        #expect(t.start(now: .zero) == [.sendQuery])
        #expect(t.receivedGoodFrame(now: .milliseconds(20)) == [.changed(.online, hint: nil)])
        #expect(t.receivedGoodFrame(now: .milliseconds(30)).isEmpty)
    }

    @Test("a query goes out every interval")
    func periodicQueries() {
        var t = tracker(every: .seconds(30))
        _ = t.start(now: .zero)
        _ = t.receivedGoodFrame(now: .seconds(1))
        #expect(t.nextWake == .seconds(30))
        #expect(t.tick(now: .seconds(29)).isEmpty)
        #expect(t.tick(now: .seconds(30)) == [.sendQuery])
    }

    @Test("K unanswered queries make the device offline with a hint, once")
    func offlineAfterMisses() {
        var t = tracker(every: .seconds(10), misses: 2)
        _ = t.start(now: .zero)
        _ = t.receivedGoodFrame(now: .seconds(1))
        #expect(t.tick(now: .seconds(10)) == [.sendQuery])
        #expect(t.tick(now: .seconds(20)) == [.sendQuery])
        #expect(t.tick(now: .seconds(30)) == [.changed(.offline, hint: "no answer to 2 queries"), .sendQuery])
        #expect(t.tick(now: .seconds(40)) == [.sendQuery])
        #expect(t.receivedGoodFrame(now: .seconds(41)) == [.changed(.online, hint: nil)])
    }

    @Test("no traffic at all for the silence timeout means offline before the query count runs out")
    func silenceMeansOffline() {
        var t = AvailabilityTracker(
            configuration: .init(queryInterval: .seconds(30), maxUnansweredQueries: 5, silenceTimeout: .seconds(45)))
        _ = t.start(now: .zero)
        _ = t.receivedGoodFrame(now: .zero)
        #expect(t.nextWake == .seconds(30))
        _ = t.tick(now: .seconds(30))
        #expect(t.nextWake == .seconds(45))
        #expect(t.tick(now: .seconds(45)).first == .changed(.offline, hint: "no traffic for 45.0 seconds"))
    }

    @Test("a wrong local key is reported as auth failure, not offline")
    func keyMismatchIsAuthFailed() {
        var t = tracker(every: .seconds(10), misses: 1)
        _ = t.start(now: .zero)
        #expect(t.receivedKeyMismatch(now: .seconds(1)) == [.changed(.authFailed, hint: "local key mismatch")])
        #expect(t.tick(now: .seconds(10)) == [.sendQuery])
        #expect(t.availability == .authFailed)
        #expect(t.receivedGoodFrame(now: .seconds(11)) == [.changed(.online, hint: nil)])
    }

    @Test("losing the broker makes the device offline and stops queries until restarted")
    func brokerLost() {
        var t = tracker()
        _ = t.start(now: .zero)
        _ = t.receivedGoodFrame(now: .zero)
        #expect(t.brokerLost() == [.changed(.offline, hint: "broker connection lost")])
        #expect(t.nextWake == nil)
        #expect(t.tick(now: .seconds(100)).isEmpty)
        #expect(t.start(now: .seconds(100)) == [.sendQuery])
    }
}
