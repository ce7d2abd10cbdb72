import DeviceSimulator
import Testing
import TuyaWire

@Suite("BLE frame IVs from a seeded generator")
struct RandomIVSourceTests {
    @Test("a seeded source gives the IVs it gave before: one draw per byte, as UInt8.random over the full range")
    func sameBytesAsBefore() {
        var source = RandomIVSource(generator: SeededGenerator(seed: 42))
        var reference = SeededGenerator(seed: 42)
        for _ in 0..<100 {
            let expected = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &reference) }
            #expect(source.nextIV() == expected)
        }
    }
}
