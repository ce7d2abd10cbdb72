import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests: no I/O.
@Suite("Reconciliation.plan")
struct ReconciliationTests {
    let power = Fixtures.dp(1)
    let bright = Fixtures.dp(2)
    let temp = Fixtures.dp(3)

    @Test("only desired DPs whose reported value differs are planned")
    func onlyDifferences() {
        let plan = Reconciliation.plan(
            reported: [power: .bool(true), bright: .value(10), temp: .value(3)],
            desired: [power: .bool(true), bright: .value(200)])
        #expect(plan == [bright: .value(200)])
    }

    @Test("a desired DP the device did not report is planned")
    func missingIsPlanned() {
        #expect(Reconciliation.plan(reported: [:], desired: [power: .bool(false)]) == [power: .bool(false)])
    }

    @Test("a device that kept its state gets an empty plan")
    func nothingToDo() {
        let state: DataPoints = [power: .bool(true), bright: .value(128)]
        #expect(Reconciliation.plan(reported: state, desired: state).isEmpty)
    }

    @Test("a value of another type counts as different")
    func typeMismatchDiffers() {
        #expect(
            Reconciliation.plan(reported: [bright: .string("128")], desired: [bright: .value(128)]) == [
                bright: .value(128)
            ])
    }
}
