import Testing
import TuyaCore

@Suite("ValueScaling")
struct ValueScalingTests {
    @Test("percent edges on a v2 brightness DP 10–1000")
    func v2Edges() {
        #expect(ValueScaling.raw(fromPercent: 0, range: 10...1000) == 10)
        #expect(ValueScaling.raw(fromPercent: 1, range: 10...1000) == 20)
        #expect(ValueScaling.raw(fromPercent: 50, range: 10...1000) == 505)
        #expect(ValueScaling.raw(fromPercent: 100, range: 10...1000) == 1000)
        #expect(ValueScaling.percent(fromRaw: 10, range: 10...1000) == 0)
        #expect(ValueScaling.percent(fromRaw: 1000, range: 10...1000) == 100)
    }

    @Test("percent edges on a v1 brightness DP 25–255")
    func v1Edges() {
        #expect(ValueScaling.raw(fromPercent: 0, range: 25...255) == 25)
        #expect(ValueScaling.raw(fromPercent: 1, range: 25...255) == 27)
        #expect(ValueScaling.raw(fromPercent: 100, range: 25...255) == 255)
        #expect(ValueScaling.percent(fromRaw: 26, range: 25...255) == 0)
        #expect(ValueScaling.percent(fromRaw: 27, range: 25...255) == 1)
    }

    @Test("percentages and raw values outside their range are clamped")
    func clamping() {
        #expect(ValueScaling.raw(fromPercent: -5, range: 10...1000) == 10)
        #expect(ValueScaling.raw(fromPercent: 150, range: 10...1000) == 1000)
        #expect(ValueScaling.raw(fromPercent: Int.max, range: 25...255) == 255)
        #expect(ValueScaling.raw(fromPercent: Int.min, range: 25...255) == 25)
        #expect(ValueScaling.percent(fromRaw: 0, range: 10...1000) == 0)
        #expect(ValueScaling.percent(fromRaw: Int32.max, range: 10...1000) == 100)
    }

    @Test("raw values land on the step grid and never leave the range")
    func steps() {
        #expect(ValueScaling.raw(fromPercent: 33, range: 0...1000, step: 10) == 330)
        #expect(ValueScaling.raw(fromPercent: 1, range: 0...1000, step: 10) == 10)
        // 10 + 7k: the last grid point inside 10...1000 is 997.
        #expect(ValueScaling.raw(fromPercent: 100, range: 10...1000, step: 7) == 997)
        #expect(ValueScaling.raw(fromPercent: 50, range: 10...1000, step: 7) == 507)
        #expect(ValueScaling.raw(fromPercent: 50, range: 0...10, step: 0) == 5)
    }

    @Test("degenerate and extreme ranges do not trap")
    func degenerate() {
        #expect(ValueScaling.raw(fromPercent: 50, range: 5...5) == 5)
        #expect(ValueScaling.percent(fromRaw: 5, range: 5...5) == 100)
        #expect(ValueScaling.raw(fromPercent: 100, range: Int32.min...Int32.max) == Int32.max)
        #expect(ValueScaling.raw(fromPercent: 0, range: Int32.min...Int32.max) == Int32.min)
        #expect(ValueScaling.percent(fromRaw: 0, range: Int32.min...Int32.max) == 50)
        #expect(ValueScaling.raw(fromPercent: 100, range: 0...10, step: Int32.max) == 0)
        #expect(ValueScaling.raw(fromKelvin: 3000, kelvinRange: 3000...3000, range: 0...1000) == 0)
        #expect(ValueScaling.kelvin(fromRaw: 7, kelvinRange: 2700...6500, range: 7...7) == 2700)
    }

    static let ranges: [(ClosedRange<Int32>, Int32)] = [
        (10...1000, 1), (25...255, 1), (0...255, 1), (0...1000, 1), (0...100, 1), (1...1000, 5), (0...1000, 10),
    ]

    @Test("percent → raw → percent is the identity on ranges of at least 100 steps", arguments: ranges)
    func percentStable(range: ClosedRange<Int32>, step: Int32) {
        let drifted = (0...100).filter { p in
            ValueScaling.percent(fromRaw: ValueScaling.raw(fromPercent: p, range: range, step: step), range: range) != p
        }
        #expect(drifted.isEmpty)
    }

    @Test("raw → percent → raw drifts by at most one percent step", arguments: ranges)
    func rawDrift(range: ClosedRange<Int32>, step: Int32) {
        let percentStep = (Int(range.upperBound) - Int(range.lowerBound) + 99) / 100
        let drifted = stride(from: range.lowerBound, through: range.upperBound, by: Int(step)).filter { raw in
            let back = ValueScaling.raw(
                fromPercent: ValueScaling.percent(fromRaw: raw, range: range), range: range, step: step)
            return abs(Int(back) - Int(raw)) > percentStep
        }
        #expect(drifted.isEmpty)
    }

    @Test("kelvin edges: the DP minimum is the warmest end (TUYA.md §4.1)")
    func kelvinEdges() {
        #expect(ValueScaling.raw(fromKelvin: 2700, kelvinRange: 2700...6500, range: 0...1000) == 0)
        #expect(ValueScaling.raw(fromKelvin: 6500, kelvinRange: 2700...6500, range: 0...1000) == 1000)
        #expect(ValueScaling.raw(fromKelvin: 4600, kelvinRange: 2700...6500, range: 0...1000) == 500)
        #expect(ValueScaling.raw(fromKelvin: 6500, kelvinRange: 2700...6500, range: 0...255) == 255)
        #expect(ValueScaling.raw(fromKelvin: 2000, kelvinRange: 2700...6500, range: 0...1000) == 0)
        #expect(ValueScaling.raw(fromKelvin: 9000, kelvinRange: 2700...6500, range: 0...1000) == 1000)
        #expect(ValueScaling.kelvin(fromRaw: 0, kelvinRange: 2700...6500, range: 0...1000) == 2700)
        #expect(ValueScaling.kelvin(fromRaw: 500, kelvinRange: 2700...6500, range: 0...1000) == 4600)
        #expect(ValueScaling.kelvin(fromRaw: 1000, kelvinRange: 2700...6500, range: 0...1000) == 6500)
        #expect(ValueScaling.kelvin(fromRaw: -4, kelvinRange: 2700...6500, range: 0...1000) == 2700)
    }

    @Test("raw → kelvin → raw is the identity when kelvin is the finer unit")
    func kelvinStable() {
        for range: ClosedRange<Int32> in [0...1000, 0...255] {
            let drifted = (range.lowerBound...range.upperBound).filter { raw in
                let k = ValueScaling.kelvin(fromRaw: raw, kelvinRange: 2700...6500, range: range)
                return ValueScaling.raw(fromKelvin: k, kelvinRange: 2700...6500, range: range) != raw
            }
            #expect(drifted.isEmpty)
        }
    }

    @Test("a kelvin value a user asks for reads back as asked: 5000 K and 3500 K, not 4999 K and 3502 K")
    func kelvinReadsBackAsAsked() {
        for (range, kelvins) in [
            (Int32(0)...1000, [5000, 3500, 2700, 6500, 4000, 3000]), (Int32(0)...255, [5000, 3500, 4000, 6500]),
        ] {
            for kelvin in kelvins {
                let raw = ValueScaling.raw(fromKelvin: kelvin, kelvinRange: 2700...6500, range: range)
                #expect(ValueScaling.kelvin(fromRaw: raw, kelvinRange: 2700...6500, range: range) == kelvin)
            }
        }
        // Every multiple of 100 K round trips on the fine v2 range, and every kelvin reads
        // back within one raw step of itself.
        for kelvin in 2700...6500 {
            let raw = ValueScaling.raw(fromKelvin: kelvin, kelvinRange: 2700...6500, range: 0...1000)
            let back = ValueScaling.kelvin(fromRaw: raw, kelvinRange: 2700...6500, range: 0...1000)
            if kelvin % 100 == 0 { #expect(back == kelvin) }
            #expect(abs(back - kelvin) <= 4)
        }
    }
}
