import Testing

@testable import Gateway

// The signal between the daemon's services: waiters in tasks, outcomes set by hand.
@Suite("Readiness")
struct ReadinessTests {
    @Test("every waiter learns the outcome, whether it waited before or after it was decided")
    func everyWaiterLearnsIt() async {
        let readiness = Readiness()
        let early = Task { await readiness.wait() }
        let other = Task { await readiness.wait() }
        readiness.succeed()
        #expect(await early.value)
        #expect(await other.value)
        #expect(await readiness.wait())
    }

    @Test("the first outcome stands")
    func firstOutcomeStands() async {
        let readiness = Readiness()
        readiness.fail()
        readiness.succeed()
        #expect(await !readiness.wait())
    }

    @Test("a cancelled waiter gets false at once; the others still get the real outcome")
    func cancelledWaiter() async {
        let readiness = Readiness()
        let cancelled = Task { await readiness.wait() }
        let patient = Task { await readiness.wait() }
        cancelled.cancel()
        #expect(await !cancelled.value)
        readiness.succeed()
        #expect(await patient.value)
    }
}
