import Testing

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
}
