import Testing

@testable import TuyaController

@Suite("Bad frames from a LAN device are logged, at most one line a minute per device")
struct LANFaultLogTests {
    @Test("the first bad frame is logged; the next within a minute are counted; the line after says how many")
    func rateLimited() {
        var log = LANFaultLog()
        #expect(log.admit(now: .seconds(10)) == 0)
        #expect(log.admit(now: .seconds(11)) == nil)
        #expect(log.admit(now: .seconds(69)) == nil)
        #expect(log.admit(now: .seconds(70)) == 2, "a minute after the last line, with the two left out")
        #expect(log.admit(now: .seconds(71)) == nil)
        #expect(log.admit(now: .seconds(500)) == 1)
        #expect(log.admit(now: .seconds(600)) == 0, "nothing was left out since")
    }
}
