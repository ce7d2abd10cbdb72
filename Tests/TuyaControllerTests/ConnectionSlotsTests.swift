import Timing
import Testing
import TuyaCore

@testable import TuyaController

// Pure unit tests of the per-adapter connection limit.
@Suite("ConnectionSlots")
struct ConnectionSlotsTests {
    @Test("the first requests up to the limit are granted at once, the rest wait")
    func grantsUpToLimit() {
        var slots = ConnectionSlots<String>(limit: 2)
        let r1 = slots.request("a")
        #expect(r1)
        let r2 = slots.request("b")
        #expect(r2)
        let r3 = slots.request("c")
        #expect(!r3)
        let r4 = slots.request("d")
        #expect(!r4)
        #expect(slots.holders == ["a", "b"])
        #expect(slots.waiting == ["c", "d"])
    }

    @Test("a freed slot goes to the oldest waiter, first come first served")
    func fifo() {
        var slots = ConnectionSlots<String>(limit: 1)
        _ = slots.request("a")
        _ = slots.request("b")
        _ = slots.request("c")
        let r5 = slots.release("a")
        #expect(r5 == ["b"])
        let r6 = slots.release("b")
        #expect(r6 == ["c"])
        let r7 = slots.release("c")
        #expect(r7 == [])
        #expect(slots.holders.isEmpty)
    }

    @Test("asking again keeps a waiter's place; a newcomer cannot jump the queue while others wait")
    func noQueueJumping() {
        var slots = ConnectionSlots<String>(limit: 1)
        _ = slots.request("a")
        _ = slots.request("b")
        _ = slots.request("c")
        let r8 = slots.request("b")
        #expect(!r8)
        #expect(slots.waiting == ["b", "c"])
        let r9 = slots.request("a")
        #expect(r9)
        _ = slots.release("a")
        #expect(slots.holders == ["b"])
        let r10 = slots.request("d")
        #expect(!r10)
        #expect(slots.waiting == ["c", "d"])
    }

    @Test("a waiter that gives up leaves the queue without taking a slot")
    func leavingTheQueue() {
        var slots = ConnectionSlots<String>(limit: 1)
        _ = slots.request("a")
        _ = slots.request("b")
        _ = slots.request("c")
        let r11 = slots.release("b")
        #expect(r11 == [])
        #expect(slots.waiting == ["c"])
        let r12 = slots.release("a")
        #expect(r12 == ["c"])
    }

    @Test("the default limit is 3 and a limit below 1 is raised to 1")
    func limits() {
        #expect(ConnectionSlots<Int>().limit == 3)
        var slots = ConnectionSlots<Int>(limit: 0)
        let r13 = slots.request(1)
        #expect(r13)
        let r14 = slots.request(2)
        #expect(!r14)
    }

    @Test("reconnect delays double from 1 s and stop at 60 s")
    func backoff() {
        let backoff = Backoff.deviceLink
        #expect((0..<8).map { backoff.delay(retry: $0) } == [1, 2, 4, 8, 16, 32, 60, 60].map { .seconds($0) })
    }
}
