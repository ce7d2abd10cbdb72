import TuyaCore

/// A planned session: every cue at its offset from the start, sorted by offset then index.
public struct SessionTimeline: Hashable, Sendable {
    public var session: ResolvedSession
    public var presetName: String
    /// The whole session, end effect included, in firing order.
    public var cues: [SessionCue]
    /// The end of the session on its own, with offsets from the moment the end begins
    /// (each cue keeps its index in `cues`): what plays when a session is ended early.
    public var endingCues: [SessionCue]
    /// Devices whose state the runner captures at the start because a restore cue needs it.
    public var devicesToCapture: [DeviceID]

    public init(
        session: ResolvedSession, presetName: String, cues: [SessionCue], endingCues: [SessionCue],
        devicesToCapture: [DeviceID]
    ) {
        self.session = session
        self.presetName = presetName
        self.cues = cues
        self.endingCues = endingCues
        self.devicesToCapture = devicesToCapture
    }

    /// When the meditation ends and the end effect starts.
    public var end: Duration { session.end }

    /// When the last cue fires.
    public var totalDuration: Duration { cues.last?.offset ?? .zero }

    /// The devices the session drives.
    public var deviceIDs: [DeviceID] { Array(Set(cues.compactMap(\.deviceID))).sorted() }

    /// What each device is left with at the end: the last command or restore of the end
    /// effect. A daemon that comes back after a session's planned end applies these.
    public var finalActions: [DeviceID: SessionCue.Action] {
        var actions: [DeviceID: SessionCue.Action] = [:]
        for cue in endingCues {
            guard let device = cue.deviceID, cue.action != .none else { continue }
            actions[device] = cue.action
        }
        return actions
    }
}
