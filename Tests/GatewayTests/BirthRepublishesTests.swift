import Testing

@testable import Gateway

/// Pure: when Home Assistant's births republish, on a hand-driven clock (offsets in seconds).
@Suite("Home Assistant birth republishes")
struct BirthRepublishesTests {
    @Test("the first birth republishes at once; births within the interval make one republish at its end")
    func coalesced() {
        var births = BirthRepublishes()
        #expect(births.birth(at: .seconds(100)) == .now)
        #expect(births.birth(at: .seconds(101)) == .at(.seconds(110)))
        for second in 102..<110 { #expect(births.birth(at: .seconds(second)) == .coalesced) }
        births.trailingRan(at: .seconds(110))
        #expect(births.birth(at: .seconds(112)) == .at(.seconds(120)), "within the interval of the trailing one")
        births.trailingRan(at: .seconds(120))
        #expect(births.birth(at: .seconds(130)) == .now, "a birth after a quiet interval is at once again")
        #expect(births.birth(at: .seconds(200)) == .now)
    }
}
