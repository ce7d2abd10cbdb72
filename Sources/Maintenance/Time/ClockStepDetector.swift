import Foundation

/// Notices the wall clock jumping, by reading it beside a monotonic clock: a Raspberry Pi
/// has no battery-backed clock, so it boots at 1970 (or at the last shutdown time that
/// systemd-timesyncd restores) and is stepped to the real time when NTP answers. Times taken
/// before that step belong to another frame: an interval that spans it would count the whole
/// jump as usage. Pure: the caller passes both readings.
///
/// Each reading re-anchors the frame, so NTP's slow slewing never adds up to a step; only a
/// difference of more than `tolerance` between the two clocks since the last reading is one.
public struct ClockStepDetector: Sendable {
    /// A step of the wall clock, seen at one reading.
    public struct Step: Hashable, Sendable {
        /// What the wall clock would read now had it not stepped: the old frame's now.
        public var expected: Date
        /// What it reads now.
        public var actual: Date
        /// The old frame's first reading: times from `frameStart` to `expected` were taken in it.
        public var frameStart: Date
        /// The latest time restored from before this process (`noteRestored`): nothing at or
        /// before it was taken in the old frame, though a clock set back to the last NTP sync
        /// at boot may read earlier than it.
        public var restored: Date?

        public init(expected: Date, actual: Date, frameStart: Date, restored: Date? = nil) {
            self.expected = expected
            self.actual = actual
            self.frameStart = frameStart
            self.restored = restored
        }

        /// Seconds the wall clock moved on top of the time that passed (negative: backwards).
        public var offset: TimeInterval { actual.timeIntervalSince(expected) }

        /// Whether `date` was taken in the old frame (so it should move by `offset`).
        public func isInOldFrame(_ date: Date) -> Bool {
            date >= frameStart && date <= expected && restored.map { date > $0 } ?? true
        }

        /// `date` moved into the new frame when it was taken in the old one.
        public func carried(_ date: Date) -> Date {
            isInOldFrame(date) ? date.addingTimeInterval(offset) : date
        }
    }

    public let tolerance: TimeInterval
    private var anchor: (wall: Date, monotonic: Duration)?
    private var frameStart: Date?
    private var restored: Date?

    public init(tolerance: TimeInterval = 60) {
        self.tolerance = tolerance
    }

    /// Times up to `date` were restored from a store written before this process: a step
    /// never moves them.
    public mutating func noteRestored(upTo date: Date) {
        restored = max(restored ?? date, date)
    }

    /// Takes one reading of both clocks; returns the step since the last reading, if any.
    public mutating func read(wall: Date, monotonic: Duration) -> Step? {
        defer { anchor = (wall, monotonic) }
        guard let anchor, let frameStart else {
            frameStart = wall
            return nil
        }
        let passed = monotonic - anchor.monotonic
        let seconds = Double(passed.components.seconds) + Double(passed.components.attoseconds) / 1e18
        let expected = anchor.wall.addingTimeInterval(seconds)
        guard abs(wall.timeIntervalSince(expected)) > tolerance else { return nil }
        self.frameStart = wall
        return Step(expected: expected, actual: wall, frameStart: frameStart, restored: restored)
    }
}
