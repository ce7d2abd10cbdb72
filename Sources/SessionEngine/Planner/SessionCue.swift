import TuyaCore

/// One thing that happens at one moment of a session: a command to one device, or a
/// marker (a stage starts, the meditation ends) that only changes the phase.
public struct SessionCue: Hashable, Sendable {
    /// Position in the timeline, unique per session: the cue log's key, and how a
    /// restarted session knows which cues already fired.
    public var index: Int
    /// From the session start (for an open-ended session's ending cues, from the moment
    /// it is ended).
    public var offset: Duration
    public var kind: Kind
    /// Nil for markers.
    public var deviceID: DeviceID?
    public var action: Action

    public init(index: Int, offset: Duration, kind: Kind, deviceID: DeviceID?, action: Action) {
        self.index = index
        self.offset = offset
        self.kind = kind
        self.deviceID = deviceID
        self.action = action
    }

    public enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// The preset's start scene.
        case start
        case stageStart(stage: Int)
        /// The first half of a bell: the dip (or the bell marker for a device without one).
        case bell(stage: Int, ring: Int)
        /// The light returning to the scene after the dip.
        case bellReturn(stage: Int, ring: Int)
        /// The meditation is over; the end effect begins.
        case end
        /// One step of a sunrise or fade-out ramp, counted from 1.
        case rampStep(step: Int, of: Int)
        /// A one-shot end effect (a diffuser switched off).
        case endEffect
        /// Back to the state captured at the start.
        case restore

        public var description: String {
            switch self {
            case .start: "start"
            case .stageStart(let stage): "stage \(stage + 1) start"
            case .bell(let stage, let ring): "bell \(ring) of stage \(stage + 1)"
            case .bellReturn(let stage, let ring): "bell \(ring) of stage \(stage + 1) return"
            case .end: "end"
            case .rampStep(let step, let count): "ramp step \(step)/\(count)"
            case .endEffect: "end effect"
            case .restore: "restore"
            }
        }

        /// Whether this cue belongs to the end of the session (played again from "now"
        /// when a session is ended early).
        public var isEnding: Bool {
            switch self {
            case .end, .rampStep, .endEffect, .restore: true
            case .start, .stageStart, .bell, .bellReturn: false
            }
        }
    }

    public enum Action: Hashable, Sendable {
        /// A marker: nothing is sent.
        case none
        case send(DeviceCommand)
        /// Sends the device's state captured when the session started.
        case restoreCapturedState
    }
}
