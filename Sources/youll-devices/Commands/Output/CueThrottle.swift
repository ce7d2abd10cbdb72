/// Keeps the follow view readable during a sunrise or fade: ramp steps arrive several
/// times a second, so at most one ramp line is printed per `interval` seconds, the newest
/// one held back meanwhile (printed on the next tick, or before any other line). Every
/// other cue is printed at once. Pure: the caller says what time it is.
struct CueThrottle {
    var interval: Double = 1
    private var lastRampPrinted: Double?
    private var held: String?

    /// A cue line arriving at `now` (seconds on any steady clock); the lines to print now.
    mutating func offer(_ line: String, at now: Double) -> [String] {
        guard Self.isRamp(line) else { return flush() + [line] }
        if let last = lastRampPrinted, now - last < interval {
            held = line
            return []
        }
        held = nil
        lastRampPrinted = now
        return [line]
    }

    /// A second went by: the held ramp line, once `interval` has passed since the last one.
    mutating func tick(at now: Double) -> [String] {
        guard let line = held, now - (lastRampPrinted ?? now) >= interval else { return [] }
        held = nil
        lastRampPrinted = now
        return [line]
    }

    /// The held ramp line, if any (before another line, or at the end).
    mutating func flush() -> [String] {
        defer { held = nil }
        return held.map { [$0] } ?? []
    }

    /// `00:31.2  ramp step 3/30  lamp  sent`.
    static func isRamp(_ line: String) -> Bool { line.contains("  ramp step ") }
}
