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

        public init(
            elapsed: Duration, firedCues: Set<Int> = [], endingStartedAt: Duration? = nil,
            captured: [DeviceID: DeviceState] = [:]
        ) {
            self.elapsed = elapsed
            self.firedCues = firedCues
            self.endingStartedAt = endingStartedAt
            self.captured = captured
        }
    }
}
