/// Sends `WATCHDOG=1` every `notifier.watchdogInterval` until the task is cancelled; returns at
/// once when there is no watchdog (no `WatchdogSec=`, or not under systemd).
///
/// Run it in the daemon's task group from the start, not after `READY=1`: systemd's watchdog
/// timer runs while the daemon is still starting. Pings are due at fixed deadlines (start +
/// n × interval), so time spent sending does not stretch the period; after the process was
/// suspended past a deadline the next ping goes out at once, then one interval later (no burst).
///
/// A failed ping goes to `onFailure` (the daemon logs it) and the loop carries on: one lost
/// datagram is harmless, and a lasting failure ends in systemd restarting the unit, which is
/// what the watchdog is for.
/// - Parameter clock: `ContinuousClock()` in the daemon, a test clock in tests.
public func runWatchdog(
    notifier: SystemdNotifier, clock: any Clock<Duration>, onFailure: (SystemdError) -> Void = { _ in }
) async {
    guard let interval = notifier.watchdogInterval, interval > .zero else { return }
    await pingWatchdog(notifier: notifier, every: interval, clock: clock, onFailure: onFailure)
}

private func pingWatchdog<C: Clock<Duration>>(
    notifier: SystemdNotifier, every interval: Duration, clock: C, onFailure: (SystemdError) -> Void
) async {
    var deadline = clock.now.advanced(by: interval)
    while !Task.isCancelled {
        do {
            try await clock.sleep(until: deadline, tolerance: nil)
        } catch {
            return
        }
        do throws(SystemdError) {
            try notifier.watchdog()
        } catch {
            onFailure(error)
        }
        deadline = deadline.advanced(by: interval)
        let now = clock.now
        if deadline < now { deadline = now.advanced(by: interval) }
    }
}
