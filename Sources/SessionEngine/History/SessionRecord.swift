import Foundation
import TuyaCore

/// A session as the store keeps it: enough to list it in `timer history`, and to plan it
/// again and resume it after a daemon restart.
public struct SessionRecord: Hashable, Sendable {
    public var id: SessionID
    public var presetName: String
    /// What was asked for (shown in history).
    public var configuration: SessionConfiguration
    /// What it resolved to at the start ("until 07:30" as concrete stages): replanned
    /// with the preset on recovery.
    public var session: ResolvedSession
    public var devices: [DeviceID]
    public var state: SessionState
    public var startedAt: Date
    public var endedAt: Date?
    /// Time in the session, pauses excluded, as last saved.
    public var elapsed: Duration
    /// When `elapsed` was true, on the wall clock; for a paused session, when its pause
    /// began. Nil for a record saved before it was kept.
    public var elapsedAt: Date?
    /// Set when the session was ended early; the end effect started at this elapsed time.
    public var endingStartedAt: Duration?
    /// States captured at the start for restore cues.
    public var captured: [DeviceID: DeviceState]

    public init(
        id: SessionID, presetName: String, configuration: SessionConfiguration, session: ResolvedSession,
        devices: [DeviceID], state: SessionState, startedAt: Date, endedAt: Date? = nil, elapsed: Duration = .zero,
        elapsedAt: Date? = nil, endingStartedAt: Duration? = nil, captured: [DeviceID: DeviceState] = [:]
    ) {
        self.id = id
        self.presetName = presetName
        self.configuration = configuration
        self.session = session
        self.devices = devices
        self.state = state
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.elapsed = elapsed
        self.elapsedAt = elapsedAt
        self.endingStartedAt = endingStartedAt
        self.captured = captured
    }

    /// What history and badges count.
    public var summary: SessionSummary { SessionSummary(startedAt: startedAt, duration: elapsed, state: state) }
}

/// The three facts history, streaks and badges need from a session.
public struct SessionSummary: Hashable, Sendable {
    public var startedAt: Date
    public var duration: Duration
    public var state: SessionState

    public init(startedAt: Date, duration: Duration, state: SessionState) {
        self.startedAt = startedAt
        self.duration = duration
        self.state = state
    }
}
