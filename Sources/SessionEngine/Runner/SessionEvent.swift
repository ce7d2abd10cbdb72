import TuyaCore

/// What a running session announces (the bridge's `session_started`, `session_cue`,
/// `session_ended`; the CLI's live view; the store's writes).
public enum SessionEvent: Hashable, Sendable {
    /// The states captured for restore cues; a store keeps them so a restarted daemon can
    /// still restore.
    case started(SessionStatus, captured: [DeviceID: DeviceState])
    case phaseChanged(SessionPhase)
    /// A cue fired (outcome `marked`, `sent` or `skipped`).
    case cueFired(CueRecord)
    /// A sent cue's command settled: `confirmed`, `skipped(.notApplied)` or `cancelled`.
    case cueSettled(CueRecord)
    case paused(elapsed: Duration)
    case resumed(elapsed: Duration)
    /// The session is over: `completed` or `stopped`.
    case ended(SessionState, elapsed: Duration)
}

/// A snapshot for `timer status` and progress views.
public struct SessionStatus: Hashable, Sendable {
    public var id: SessionID
    public var presetName: String
    public var state: SessionState
    public var phase: SessionPhase
    /// Time in the session, pauses excluded.
    public var elapsed: Duration
    /// Until the meditation ends (the end effect follows); nil for an open-ended session
    /// that has not been ended.
    public var remaining: Duration?
    /// Until the next interval bell; nil when no bell is left.
    public var nextBell: Duration?
    public var firedCues: Int
    public var skippedCues: Int
    public var totalCues: Int
    /// Per device: what became of its cues so far.
    public var devices: [DeviceID: DeviceOutcome]

    public init(
        id: SessionID, presetName: String, state: SessionState, phase: SessionPhase, elapsed: Duration,
        remaining: Duration?, nextBell: Duration?, firedCues: Int, skippedCues: Int, totalCues: Int,
        devices: [DeviceID: DeviceOutcome]
    ) {
        self.id = id
        self.presetName = presetName
        self.state = state
        self.phase = phase
        self.elapsed = elapsed
        self.remaining = remaining
        self.nextBell = nextBell
        self.firedCues = firedCues
        self.skippedCues = skippedCues
        self.totalCues = totalCues
        self.devices = devices
    }
}

/// Counts of one device's cue outcomes in a session.
public struct DeviceOutcome: Hashable, Sendable, Codable {
    public var sent = 0
    public var confirmed = 0
    public var skipped = 0

    public init(sent: Int = 0, confirmed: Int = 0, skipped: Int = 0) {
        self.sent = sent
        self.confirmed = confirmed
        self.skipped = skipped
    }
}
