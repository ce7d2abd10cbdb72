import Testing

@testable import TuyaController

/// The rules a LAN link follows for addresses heard in broadcasts, without a link.
@Suite("LAN address proof")
struct LANAddressProofTests {
    @Test("the stored address is trusted; another is trusted once the key is proven there, then saved once")
    func provingAnAddress() {
        var proof = LANAddressProof(proven: "192.0.2.10")
        #expect(proof.counts(payload: [], at: "192.0.2.10"), "an empty frame at the stored address counts")
        #expect(!proof.counts(payload: [], at: "192.0.2.66"), "an empty frame elsewhere proves nothing")
        #expect(!proof.blamesKey(at: "192.0.2.66"))
        let first = proof.keyProven(at: "192.0.2.11")
        let second = proof.keyProven(at: "192.0.2.11")
        #expect(first, "newly proven: to be saved")
        #expect(!second, "saved once")
        #expect(proof.proven == "192.0.2.11" && proof.counts(payload: [], at: "192.0.2.11"))
        proof.resetConnection()
        #expect(!proof.provenHere)
    }

    @Test("a failure before proof goes back to the proven address, and that address waits a minute")
    func failingBeforeProof() {
        var proof = LANAddressProof(proven: "192.0.2.10")
        let back = proof.failed(at: "192.0.2.66", now: .seconds(100))
        #expect(back == "192.0.2.10")
        #expect(!proof.allowsMove(to: "192.0.2.66", now: .seconds(159)))
        #expect(proof.allowsMove(to: "192.0.2.66", now: .seconds(160)))
        #expect(proof.allowsMove(to: "192.0.2.11", now: .seconds(101)), "another address is not held back")
        let atProven = proof.failed(at: "192.0.2.10", now: .seconds(200))
        #expect(atProven == nil, "a failure at the proven address stays")
        _ = proof.keyProven(at: "192.0.2.12")
        let afterProof = proof.failed(at: "192.0.2.12", now: .seconds(300))
        #expect(afterProof == nil, "proven on this connection: stays")
    }

    @Test("a version from a broadcast is proven like an address: no blame before, saved once at the proof")
    func provingAVersion() {
        var proof = LANAddressProof(proven: "192.0.2.10", versionProven: false)
        #expect(!proof.blamesKey(at: "192.0.2.10"), "a failed handshake speaking it does not blame the key")
        #expect(proof.failed(at: "192.0.2.10", now: .zero) == nil, "no other address to go back to")
        let first = proof.keyProven(at: "192.0.2.10")
        let second = proof.keyProven(at: "192.0.2.10")
        #expect(first, "the version is newly proven at the stored address: to be saved")
        #expect(!second, "saved once")
        #expect(proof.versionProven && proof.blamesKey(at: "192.0.2.10"))
    }
}
