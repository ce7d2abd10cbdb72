/// One stage of a session: a name shown in progress views, how long it lasts and how
/// often its interval bell rings (counted from the start of the stage).
public struct SessionStage: Hashable, Sendable, Codable {
    public var name: String
    public var length: Duration
    /// Nil: no interval bell in this stage.
    public var bellInterval: Duration?

    public init(name: String, length: Duration, bellInterval: Duration? = nil) {
        self.name = name
        self.length = length
        self.bellInterval = bellInterval
    }

    /// The CLI's and deep links' units: whole minutes.
    public init(name: String, minutes: Int, bellEveryMinutes: Int? = nil) {
        self.init(name: name, length: .seconds(minutes * 60), bellInterval: bellEveryMinutes.map { .seconds($0 * 60) })
    }

    /// How many bells `bellOffsets` holds, counted without making them.
    public var bellCount: Int {
        guard let interval = bellInterval, interval > .zero, length > interval else { return 0 }
        let ratio = length / interval
        // Kept to a billion, so the bells of many stages add up without overflowing.
        guard ratio < 1e9 else { return 1_000_000_000 }
        // Complete intervals strictly before the end: ⌈length / interval⌉ − 1.
        return Int(ratio.rounded(.up)) - 1
    }

    /// Offsets of the interval bells from the start of the stage: only complete intervals
    /// strictly before the stage ends ring (a bell every 5 min in a 10 min stage rings at
    /// 5 only; the end of the stage is not a bell).
    public var bellOffsets: [Duration] {
        guard let interval = bellInterval, interval > .zero else { return [] }
        var offsets: [Duration] = []
        var next = interval
        while next < length {
            offsets.append(next)
            next += interval
        }
        return offsets
    }
}
