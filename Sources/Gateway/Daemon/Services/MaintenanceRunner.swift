import Logging
import ServiceLifecycle

/// Maintenance reminders in the daemon's service group: they run once the bridge that
/// publishes their alerts is up and the timer has recovered its session (which holds alerts
/// while it runs), until shutdown (the update under way is stored first).
struct MaintenanceRunner: Service {
    let maintenance: MaintenanceService
    let bridgeReady: Readiness
    let timerReady: Readiness
    let logger: Logger

    func run() async {
        guard await bridgeReady.waitUnlessStopping(), await timerReady.waitUnlessStopping() else {
            await shutdownRequested("maintenance", logger: logger)
            return
        }
        await cancelWhenGracefulShutdown { await maintenance.run() }
    }
}
