/// Maps user units (percent, kelvin) onto a value DP's raw integer range and back.
///
/// Tuya brightness and temperature DPs are plain integers over a product-specific range
/// (v1 bulbs 25–255, v2 bulbs 10–1000, diffuser LEDs 0–255; protocol/TUYA.md §4), so the
/// range always comes from the profile.
///
/// Rounding: percent → raw is `min + round(p × span / 100)` (halves round up), then snapped
/// to the nearest multiple of `step` above `min` and clamped into the range. Raw → percent
/// is `round((raw − min) × 100 / span)`. When the range holds at least 100 steps
/// (`span / step ≥ 100`, true of every standard Tuya range), percent → raw → percent is the
/// identity, and raw → percent → raw lands within one percent step (span / 100, rounded
/// up) of where it started: a percentage cannot name every raw value of a finer range.
/// 0 % is the DP minimum, the dimmest level the product offers (v2 bulbs: 10), not off:
/// switching off is the `power` capability's job.
///
/// Kelvin follows TUYA.md §4.1: the DP minimum is the warmest end (the binding's lower
/// kelvin bound), the DP maximum the coldest.
public enum ValueScaling {
    /// The raw value for a percentage; a percentage outside 0...100 is clamped.
    public static func raw(fromPercent percent: Int, range: ClosedRange<Int32>, step: Int32 = 1) -> Int32 {
        let p = Int64(min(max(percent, 0), 100))
        return snap(offset: (p * span(range) + 50) / 100, range: range, step: step)
    }

    /// The percentage for a raw value; a raw value outside the range is clamped first.
    /// A range of a single value reads as 100 %.
    public static func percent(fromRaw raw: Int32, range: ClosedRange<Int32>) -> Int {
        let total = span(range)
        guard total > 0 else { return 100 }
        let offset = Int64(min(max(raw, range.lowerBound), range.upperBound)) - Int64(range.lowerBound)
        return Int((offset * 100 + total / 2) / total)
    }

    /// The raw value for a colour temperature; kelvin outside `kelvin` is clamped.
    public static func raw(
        fromKelvin kelvin: Int, kelvinRange: ClosedRange<Int>, range: ClosedRange<Int32>, step: Int32 = 1
    ) -> Int32 {
        let kelvinSpan = Int64(kelvinRange.upperBound) - Int64(kelvinRange.lowerBound)
        guard kelvinSpan > 0 else { return range.lowerBound }
        let k = Int64(min(max(kelvin, kelvinRange.lowerBound), kelvinRange.upperBound)) - Int64(kelvinRange.lowerBound)
        return snap(offset: (k * span(range) + kelvinSpan / 2) / kelvinSpan, range: range, step: step)
    }

    /// The colour temperature for a raw value; a raw value outside the range is clamped first.
    ///
    /// A raw step covers several kelvin (0–1000 over 2700–6500 K: 3.8 K a step), so several
    /// kelvin values write the same raw value. The one read back is the roundest of them
    /// (most trailing zeros, then the nearest to the exact inverse), so a value a user
    /// would ask for (5000 K, 3500 K) reads back as asked rather than as 4999 K or 3502 K.
    public static func kelvin(fromRaw raw: Int32, kelvinRange: ClosedRange<Int>, range: ClosedRange<Int32>) -> Int {
        let total = span(range)
        guard total > 0 else { return kelvinRange.lowerBound }
        let kelvinSpan = Int64(kelvinRange.upperBound) - Int64(kelvinRange.lowerBound)
        let clamped = min(max(raw, range.lowerBound), range.upperBound)
        let offset = Int64(clamped) - Int64(range.lowerBound)
        let exact = kelvinRange.lowerBound + Int((offset * kelvinSpan + total / 2) / total)
        // Every kelvin that writes `clamped` lies within one raw step of the exact inverse.
        let reach = Int(kelvinSpan / total) + 2
        var best = exact
        for candidate in max(kelvinRange.lowerBound, exact - reach)...min(kelvinRange.upperBound, exact + reach)
        where Self.raw(fromKelvin: candidate, kelvinRange: kelvinRange, range: range) == clamped {
            let (roundness, bestRoundness) = (trailingZeros(candidate), trailingZeros(best))
            let writesBest = Self.raw(fromKelvin: best, kelvinRange: kelvinRange, range: range) == clamped
            if !writesBest || roundness > bestRoundness
                || (roundness == bestRoundness && abs(candidate - exact) < abs(best - exact))
            {
                best = candidate
            }
        }
        return best
    }

    /// How many times 10 divides `value` (0 counts as none, to never prefer it).
    private static func trailingZeros(_ value: Int) -> Int {
        guard value != 0 else { return 0 }
        var value = value
        var zeros = 0
        while value % 10 == 0 {
            value /= 10
            zeros += 1
        }
        return zeros
    }

    /// Spans are computed in Int64: a profile may declare any Int32 range without overflow.
    private static func span(_ range: ClosedRange<Int32>) -> Int64 {
        Int64(range.upperBound) - Int64(range.lowerBound)
    }

    /// Rounds an offset from `min` to the step grid and keeps it inside the range.
    private static func snap(offset: Int64, range: ClosedRange<Int32>, step: Int32) -> Int32 {
        let total = span(range)
        let stride = Int64(max(step, 1))
        var snapped = (offset + stride / 2) / stride * stride
        if snapped > total { snapped = total / stride * stride }
        snapped = min(max(snapped, 0), total)
        return Int32(clamping: Int64(range.lowerBound) + snapped)
    }
}
