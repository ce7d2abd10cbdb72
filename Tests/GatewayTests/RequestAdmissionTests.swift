import Testing

@testable import Gateway

// Pure unit tests: requests admitted and finished by hand.
@Suite("RequestAdmission")
struct RequestAdmissionTests {
    @Test("requests are admitted up to the limit, refused as busy beyond it, and admitted again once one ends")
    func limit() {
        var admission = RequestAdmission(limit: 2)
        let decision1 = admission.admit()
        #expect(decision1 == .admitted(id: 1))
        let decision2 = admission.admit()
        #expect(decision2 == .admitted(id: 2))
        let decision3 = admission.admit()
        #expect(decision3 == .refused(reason: "too many requests at once; try again"))
        admission.finished(1)
        let decision4 = admission.admit()
        #expect(decision4 == .admitted(id: 3))
        #expect(admission.underWay == [2, 3])
    }

    @Test("after shutdown began every request is refused, even with room to spare")
    func refusesAtShutdown() {
        var admission = RequestAdmission(limit: 64)
        let decision5 = admission.admit()
        #expect(decision5 == .admitted(id: 1))
        admission.refuseNew()
        let decision6 = admission.admit()
        #expect(decision6 == .refused(reason: "the gateway is shutting down"))
        admission.finished(1)
        let decision7 = admission.admit()
        #expect(decision7 == .refused(reason: "the gateway is shutting down"))
        #expect(admission.underWay.isEmpty)
    }

    @Test("a request reported finished twice, or never admitted, changes nothing")
    func finishedIsIdempotent() {
        var admission = RequestAdmission(limit: 1)
        let decision8 = admission.admit()
        #expect(decision8 == .admitted(id: 1))
        admission.finished(7)
        let decision9 = admission.admit()
        #expect(decision9 == .refused(reason: "too many requests at once; try again"))
        admission.finished(1)
        admission.finished(1)
        let decision10 = admission.admit()
        #expect(decision10 == .admitted(id: 2))
    }

    @Test("slow requests fill only their own budget: quick ones are admitted while every slow slot is taken")
    func slowBudget() {
        var admission = RequestAdmission(limit: 10, slowLimit: 3)
        for id in 1...3 { #expect(admission.admit(.slow) == .admitted(id: id)) }
        guard case .refused(let reason) = admission.admit(.slow) else {
            Issue.record("a fourth slow request was admitted")
            return
        }
        #expect(reason.contains("3 slow requests (pairing, rekeying, backups) are under way"))
        // The other seven slots stay for /set, /get and quick requests.
        for id in 4...10 { #expect(admission.admit(.quick) == .admitted(id: id)) }
        #expect(admission.admit(.quick) == .refused(reason: "too many requests at once; try again"))
        admission.finished(2)
        #expect(admission.admit(.slow) == .admitted(id: 11))
    }

    @Test("pairing, rekeying and backups are the slow verbs; /set and listing are not")
    func slowVerbs() {
        #expect(RequestAdmission.slowVerbs.isSuperset(of: ["device/add", "device/rekey", "backup"]))
        #expect(!RequestAdmission.slowVerbs.contains("device/rename"))
        #expect(!RequestAdmission.slowVerbs.contains("health_check"))
    }
}
