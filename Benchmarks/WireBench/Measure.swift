import Foundation

struct BenchOptions {
    var seconds = 1.0
    var body = #"{"protocol":5,"t":1732200000,"data":{"dps":{"20":true,"22":500}}}"#
}

/// Keeps the optimiser from deleting the work being measured.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Operations per second: the best of three runs of about `seconds` each, in batches so
/// reading the clock costs nothing measurable.
func rate(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    let batch = 1000
    for _ in 0..<3 {
        var count = 0
        let start = clock.now
        var elapsed = 0.0
        repeat {
            for _ in 0..<batch { try body() }
            count += batch
            let duration = start.duration(to: clock.now)
            elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        } while elapsed < seconds
        best = max(best, Double(count) / elapsed)
    }
    return best
}

func report(_ name: String, _ value: Double, _ unit: String) {
    print("BENCH \(name) \(String(format: "%.0f", value)) \(unit)")
}
