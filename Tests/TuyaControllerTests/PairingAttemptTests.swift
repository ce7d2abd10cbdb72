import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: no I/O.
@Suite("PairingAttempt")
struct PairingAttemptTests {
    let id = DeviceID("bf0123456789abcdef")!

    func attempt(profileID: String? = nil, productID: String? = nil) -> PairingAttempt {
        PairingAttempt(
            request: .init(id: id, name: "desk", profileID: profileID, productID: productID), library: Fixtures.library)
    }

    @Test("a report whose DP ids fit a profile pairs the device with it")
    func pairsByDataPoints() {
        let (outcome, profile) = attempt().receivedReport(dpIDs: [Fixtures.dp(1), Fixtures.dp(2)])
        #expect(profile?.id == "white-bulb")
        guard case .paired(let device) = outcome else {
            Issue.record("expected paired, got \(outcome)")
            return
        }
        #expect(device.profileID == "white-bulb" && device.transport == .mqtt && device.name == "desk")
    }

    @Test("the product id picks the profile")
    func pairsByProductID() {
        let (outcome, _) = attempt(productID: "keywhite").receivedReport(dpIDs: [Fixtures.dp(1)])
        #expect(outcome.pairedProfileID == "white-bulb")
    }

    @Test("DP ids no profile declares give unknownProduct with the DPs seen")
    func unknownProduct() {
        let (outcome, _) = attempt().receivedReport(dpIDs: [Fixtures.dp(20), Fixtures.dp(1)])
        #expect(outcome == .unknownProduct(dpsSeen: [Fixtures.dp(1), Fixtures.dp(20)]))
    }

    @Test("a profile for BLE only cannot pair an MQTT device")
    func bleOnlyRefused() {
        let (outcome, _) = attempt(profileID: "ble-only").receivedReport(dpIDs: [Fixtures.dp(1)])
        #expect(outcome == .unknownProduct(dpsSeen: [Fixtures.dp(1)]))
    }

    @Test("at the deadline, frames the key could not decrypt mean wrongKey, silence means noAnswer")
    func deadlineOutcomes() {
        var a = attempt()
        #expect(a.outcomeAtDeadline == .noAnswer)
        a.receivedKeyMismatch()
        #expect(a.outcomeAtDeadline == .wrongKey)
    }
}

extension PairingOutcome {
    var pairedProfileID: String? {
        if case .paired(let device) = self { device.profileID } else { nil }
    }
}
