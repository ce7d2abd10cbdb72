import Testing

@testable import Gateway

// Pure unit tests: time is a Duration passed by hand.
@Suite("PermitJoinWindow")
struct PermitJoinWindowTests {
    @Test("an open window counts down in whole seconds and never below zero")
    func countsDown() {
        var window = PermitJoinWindow()
        #expect(window.secondsLeft(now: .zero) == nil)
        window.open(for: .seconds(60), now: .seconds(10))
        #expect(window.isOpen)
        #expect(window.secondsLeft(now: .seconds(10)) == 60)
        #expect(window.secondsLeft(now: .milliseconds(40_500)) == 29)
        #expect(window.secondsLeft(now: .seconds(500)) == 0)
    }

    @Test("closing says whether there was anything to close, and reopening moves the end")
    func closeAndReopen() {
        var window = PermitJoinWindow()
        let closedClosed = window.close()
        #expect(!closedClosed)
        window.open(for: .seconds(60), now: .zero)
        window.open(for: .seconds(10), now: .seconds(5))
        #expect(window.closesAt == .seconds(15))
        let closedOpen = window.close()
        #expect(closedOpen)
        #expect(!window.isOpen)
        let closedAgain = window.close()
        #expect(!closedAgain)
    }
}
