/// Where a session stands, as persisted and reported (`timer status`, `youll/bridge/session`).
public enum SessionState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Created, not started yet.
    case scheduled
    case running
    case paused
    /// Every cue has fired.
    case completed
    /// Stopped by a person before the end.
    case stopped
    /// The daemon went away during the session and came back after its planned end.
    case interrupted

    /// Completed, stopped and interrupted sessions never run again.
    public var isFinal: Bool { self == .completed || self == .stopped || self == .interrupted }
}
