import TuyaCore

/// At most `perMinute` log lines a minute for each kind of refusal the bridge logs (a bad
/// request, a command for an unknown device): anyone on the broker can send those as fast as
/// the broker takes them, and each was a line in the journal or the log file. What is held
/// back is counted and told with the next line let through. The kinds are a closed set (a
/// failed command's is per paired device), so no text from a message can add one. A pure
/// value on the bridge's clock (offsets from its start).
struct LogBudget {
    static let perMinute = 10
    static let window = Duration.seconds(60)

    /// What was refused. A failed command has a budget per device: one device failing in a
    /// loop must not hide another's failures. Only paired devices fail commands (a command for
    /// an unknown name is `unknownDevice`), so the set stays as small as the fleet.
    enum Kind: Hashable, Sendable {
        case unknownRequest, unsignedRequest, badRequest, unanswerableRequest, unknownDevice
        case commandFailed(DeviceID)
    }

    private struct Entry {
        var windowStart: Duration
        var lines = 0
        var held = 0
    }

    private var kinds: [Kind: Entry] = [:]

    /// Whether a line of `kind` may be logged at `now`, and how many were held back before it
    /// (nil when it may not).
    mutating func admit(_ kind: Kind, at now: Duration) -> Int? {
        var entry = kinds[kind] ?? Entry(windowStart: now)
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
