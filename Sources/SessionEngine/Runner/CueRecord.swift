import TuyaCore

/// What happened to one cue: when it was planned, when it fired, and what became of its
/// command. The session's cue log, as persisted and announced (`session_cue`).
public struct CueRecord: Hashable, Sendable {
    public var cueIndex: Int
    public var kind: SessionCue.Kind
    public var deviceID: DeviceID?
    /// The cue's offset in the plan.
    public var planned: Duration
    /// The session's elapsed time (pauses excluded) when it fired.
    public var actual: Duration
    public var outcome: CueOutcome

    public init(
        cueIndex: Int, kind: SessionCue.Kind, deviceID: DeviceID?, planned: Duration, actual: Duration,
        outcome: CueOutcome
    ) {
        self.cueIndex = cueIndex
        self.kind = kind
        self.deviceID = deviceID
        self.planned = planned
        self.actual = actual
        self.outcome = outcome
    }

    /// How late the cue fired.
    public var lateness: Duration { actual - planned }
}

/// The fate of a cue. A skipped cue is a state, not an error: the session goes on, and a
/// command that could not be applied stays the device's desired state.
public enum CueOutcome: Hashable, Sendable, CustomStringConvertible {
    /// A marker: it fired, nothing was sent.
    case marked
    /// Handed to the controller; the device has not confirmed yet.
    case sent
    /// The device reported the new state.
    case confirmed
    case skipped(SkipReason)
    /// Waiting behind an earlier command to the same device when the session stopped.
    case cancelled

    public var description: String {
        switch self {
        case .marked: "marked"
        case .sent: "sent"
        case .confirmed: "confirmed"
        case .skipped(let reason): "skipped: \(reason)"
        case .cancelled: "cancelled"
        }
    }

    public var isSkipped: Bool {
        if case .skipped = self { return true }
        return false
    }
}

/// Why a cue did not reach its device.
public enum SkipReason: Hashable, Sendable, CustomStringConvertible {
    /// The device was not online when the cue fired; the command was still queued as its
    /// desired state.
    case unavailable(Availability)
    /// The controller does not know the device (removed during the session).
    case unknownDevice
    /// The device did not confirm (or the controller refused): the controller's words.
    case notApplied(String)
    /// A restore cue for a device whose state could not be captured at the start.
    case nothingCaptured

    public var description: String {
        switch self {
        case .unavailable(let availability): "device \(availability.rawValue); it catches up when it is back"
        case .unknownDevice: "device no longer paired"
        case .notApplied(let reason): reason
        case .nothingCaptured: "no state was captured at the start to restore"
        }
    }
}
