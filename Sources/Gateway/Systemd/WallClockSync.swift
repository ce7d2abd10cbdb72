import Foundation
import Maintenance
import Synchronization
import Timing

/// Whether the wall clock has been set since the machine started (`SessionService.Settings.
/// wallClockIsSet`): systemd-timesyncd's flag file exists (it lives in /run, which each boot
/// empties), or the wall clock has stepped since this probe was made (`ClockStepDetector`),
/// which is what any NTP client (chrony, ntpd) does to a clock that far off at its first answer.
final class WallClockSync: Sendable {
    static let timesyncFlag = "/run/systemd/timesync/synchronized"

    let flag: String
    private let wall: @Sendable () -> Date
    private let monotonic: @Sendable () -> Duration
    /// The step detector, and whether it has seen a step (once set, the clock stays set).
    private let state: Mutex<(steps: ClockStepDetector, stepped: Bool)>

    /// - tolerance: how far a step must move the wall clock from the monotonic one between two
    ///   readings (NTP's slewing moves it by far less).
    init(
        flag: String = WallClockSync.timesyncFlag, tolerance: TimeInterval = 2,
        wall: @escaping @Sendable () -> Date = { Date() },
        monotonic: @escaping @Sendable () -> Duration = OffsetClock(ContinuousClock()).now
    ) {
        self.flag = flag
        self.wall = wall
        self.monotonic = monotonic
        var steps = ClockStepDetector(tolerance: tolerance)
        _ = steps.read(wall: wall(), monotonic: monotonic())
        state = Mutex((steps, false))
    }

    func isSet() -> Bool {
        if FileManager.default.fileExists(atPath: flag) { return true }
        let (now, elapsed) = (wall(), monotonic())
        return state.withLock { state in
            if state.steps.read(wall: now, monotonic: elapsed) != nil { state.stepped = true }
            return state.stepped
        }
    }
}
