import TuyaCore

extension SessionRunner {
    /// Where a session restarted by the daemon picks up.
    public struct ResumePoint: Hashable, Sendable {
        /// The elapsed time saved last: cues planned before it do not fire again.
        public var elapsed: Duration
        /// Indices from the cue log: these do not fire again either.
        public var firedCues: Set<Int>
        /// When the session was ended early (`finish()`), the elapsed time it happened.
        public var endingStartedAt: Duration?
        /// The states captured when the session first started.
        public var captured: [DeviceID: DeviceState]
        /// The elapsed time last saved, when the session went on without the daemon since
        /// (`elapsed` is later): cues planned from here to `elapsed` were missed. They do not
        /// fire late, except each device's last one (a bell's return, the current ramp step),
        /// at once, so every device shows what it would have.
        public var missedSince: Duration?
        /// It was paused: it starts paused at `elapsed`, and plays nothing until resumed.
        public var paused: Bool

        public init(
            elapsed: Duration, firedCues: Set<Int> = [], endingStartedAt: Duration? = nil,
            captured: [DeviceID: DeviceState] = [:], missedSince: Duration? = nil, paused: Bool = false
        ) {
            self.elapsed = elapsed
            self.firedCues = firedCues
            self.endingStartedAt = endingStartedAt
            self.captured = captured
            self.missedSince = missedSince
            self.paused = paused
        }

        /// Of `cues` (in offset order), each device's last command cue planned in
        /// `missedSince..<elapsed` that has not fired: the ones a resume sends at once.
        func catchUp(_ cues: [SessionCue]) -> Set<Int> {
            guard let missedSince else { return [] }
            var last: [DeviceID: Int] = [:]
            for cue in cues where cue.offset >= missedSince && cue.offset < elapsed && !firedCues.contains(cue.index) {
                guard let device = cue.deviceID, cue.action != .none else { continue }
                last[device] = cue.index
            }
            return Set(last.values)
        }
    }
}
