import TuyaCore

/// What the session service tells the outside, in the order it happens: the gateway turns
/// these into the bridge's `session_*` and `badge_earned` events and the retained
/// `bridge/session`; the CLI's foreground mode prints them. Devices are named as the
/// controller names them when the session started.
public enum SessionAnnouncement: Hashable, Sendable {
    /// A session started, or resumed after a restart; `length` is nil for an open-ended one.
    case started(SessionStatus, devices: [DeviceID], names: [DeviceID: String], resumed: Bool, length: Duration?)
    /// A cue fired, with its planned and actual time.
    case cue(CueRecord, session: SessionID, names: [DeviceID: String])
    case paused(SessionID, elapsed: Duration)
    case resumed(SessionID, elapsed: Duration)
    /// The session is over: `completed`, `stopped` or `interrupted`.
    case ended(SessionID, preset: String, state: SessionState, elapsed: Duration)
    /// A completed session earned a badge (announced before the session's `ended`).
    case badgeEarned(Badge)
    /// The active session's status; nil: none runs any more.
    case status(SessionStatus?, names: [DeviceID: String])
}

/// One line for the host's log: the service has no logger of its own.
public struct SessionLogEntry: Hashable, Sendable, CustomStringConvertible {
    public enum Level: Hashable, Sendable {
        case info, notice, error
    }

    public var level: Level
    public var message: String

    public var description: String { message }
}
