import Testing
import Timing

@Suite("Backoff")
struct BackoffTests {
    @Test("waits double from the initial one and stop at the cap")
    func doublesAndCaps() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        let expected: [Duration] = [
            .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
        ]
        #expect((0..<6).map { backoff.delay(retry: $0) } == expected)
        #expect(backoff.delay(retry: Int.max) == .seconds(1))
        #expect(backoff.delay(retry: -5) == .milliseconds(100))
    }

    @Test("jitter shortens a wait by at most its fraction, and never lengthens it")
    func jitterStaysInBounds() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.2)
        #expect(backoff.delay(retry: 0, unitRandom: 0) == .seconds(1))
        #expect(backoff.delay(retry: 0, unitRandom: 0.5) == .milliseconds(900))
        #expect(backoff.delay(retry: 0, unitRandom: 0.999_999) > .milliseconds(800))
        #expect(backoff.delay(retry: 3, unitRandom: 1) == .milliseconds(6400))
        #expect(backoff.delay(retry: 3, unitRandom: 7) == .milliseconds(6400))
    }

    @Test("a maximum below the initial wait is raised to it, and jitter is kept within 0...1")
    func clampsItsSettings() {
        let backoff = Backoff(initial: .seconds(2), maximum: .seconds(1), jitter: 3)
        #expect(backoff.maximum == .seconds(2))
        #expect(backoff.jitter == 1)
        #expect(Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: -1).jitter == 0)
    }

    @Test("the shipped schedules: broker 1–30 s, device links 1–60 s, deliveries 1 s–5 min")
    func shippedSchedules() {
        #expect(Backoff.broker.delay(retry: 10) == .seconds(30))
        #expect(Backoff.deviceLink.delay(retry: 10) == .seconds(60))
        #expect(
            (0..<11).map { Backoff.delivery.delay(retry: $0) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { Duration.seconds($0) })
    }
}

@Suite("waits in log lines")
struct RoundedDurationTests {
    @Test("a wait reads as 1.7 s below ten seconds and whole seconds above, never 1.734628 seconds")
    func rounded() {
        #expect(Duration.milliseconds(1_734).roundedText == "1.7 s")
        #expect(Duration.seconds(1).roundedText == "1.0 s")
        #expect(Duration.milliseconds(250).roundedText == "0.3 s")
        #expect(Duration.milliseconds(12_600).roundedText == "13 s")
        #expect(Duration.seconds(300).roundedText == "300 s")
    }
}
