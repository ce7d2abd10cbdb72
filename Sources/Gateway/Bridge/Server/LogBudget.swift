/// At most `perMinute` log lines a minute for each kind of refusal the bridge logs (a bad
/// request, a command for an unknown device): anyone on the broker can send those as fast as
/// the broker takes them, and each was a line in the journal or the log file. What is held
/// back is counted and told with the next line let through. Kinds are the bridge's own fixed
/// names, never text from a message. A pure value on the bridge's clock (offsets from its start).
struct LogBudget {
    static let perMinute = 10
    static let window = Duration.seconds(60)

    private struct Kind {
        var windowStart: Duration
        var lines = 0
        var held = 0
    }

    private var kinds: [String: Kind] = [:]

    /// Whether a line of `kind` may be logged at `now`, and how many were held back before it
    /// (nil when it may not).
    mutating func admit(_ kind: String, at now: Duration) -> Int? {
        var entry = kinds[kind] ?? Kind(windowStart: now)
        if now >= entry.windowStart + Self.window {
            entry.windowStart = now
            entry.lines = 0
        }
        defer { kinds[kind] = entry }
        guard entry.lines < Self.perMinute else {
            entry.held += 1
            return nil
        }
        entry.lines += 1
        let held = entry.held
        entry.held = 0
        return held
    }
}
