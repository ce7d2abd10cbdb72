import Foundation
import Timing

/// Whether the wall clock has been set since the machine started (`SessionService.Settings.
/// wallClockIsSet`): systemd-timesyncd's flag file exists (it lives in /run, which each boot
/// empties), or the wall clock has stepped since this probe was made, which is what any NTP
/// client (chrony, ntpd) does to a clock that far off at its first answer.
struct WallClockSync: Sendable {
    static let timesyncFlag = "/run/systemd/timesync/synchronized"

    let flag: String
    /// How far a step must move the wall clock from the monotonic one (NTP's slewing moves it
    /// by far less in the few minutes a session waits).
    let tolerance: TimeInterval
    private let wall: @Sendable () -> Date
    private let monotonic: @Sendable () -> Duration
    /// The wall clock minus the monotonic one when the probe was made, in seconds.
    private let startOffset: TimeInterval

    init(
        flag: String = Self.timesyncFlag, tolerance: TimeInterval = 2,
        wall: @escaping @Sendable () -> Date = { Date() },
        monotonic: @escaping @Sendable () -> Duration = OffsetClock(ContinuousClock()).now
    ) {
        self.flag = flag
        self.tolerance = tolerance
        self.wall = wall
        self.monotonic = monotonic
        startOffset = Self.offset(wall(), monotonic())
    }

    func isSet() -> Bool {
        if FileManager.default.fileExists(atPath: flag) { return true }
        return abs(Self.offset(wall(), monotonic()) - startOffset) > tolerance
    }

    private static func offset(_ wall: Date, _ monotonic: Duration) -> TimeInterval {
        let (seconds, attoseconds) = monotonic.components
        return wall.timeIntervalSince1970 - (Double(seconds) + Double(attoseconds) / 1e18)
    }
}
