import Testing
import TuyaCore

@testable import Gateway

/// Pure: how many refusal lines the bridge logs under a flood, on a hand-driven clock.
@Suite("log budget")
struct LogBudgetTests {
    @Test("ten lines a minute per kind; the rest are counted and told with the next line let through")
    func budget() {
        var budget = LogBudget()
        var logged: [Int] = []
        for index in 0..<1_000 {
            if let held = budget.admit(.badRequest, at: .milliseconds(index)) { logged.append(held) }
        }
        #expect(logged == Array(repeating: 0, count: 10), "ten in the first minute, none held before them")
        #expect(budget.admit(.unknownDevice, at: .seconds(1)) == 0, "another kind has its own budget")
        #expect(budget.admit(.badRequest, at: .seconds(61)) == 990, "the next minute's first line tells the rest")
        #expect(budget.admit(.badRequest, at: .seconds(62)) == 0)
    }

    @Test("a device whose commands fail in a loop does not use up another device's budget")
    func failedCommandsPerDevice() throws {
        let lamp = try #require(DeviceID("bf0123456789abcdefghij"))
        let diffuser = try #require(DeviceID("bf9876543210zyxwvutsrq"))
        var budget = LogBudget()
        let lampLines = (0..<50).filter { budget.admit(.commandFailed(lamp), at: .milliseconds($0)) != nil }
        #expect(lampLines.count == 10)
        #expect(budget.admit(.commandFailed(diffuser), at: .seconds(1)) == 0, "the diffuser's first failure is logged")
    }
}
