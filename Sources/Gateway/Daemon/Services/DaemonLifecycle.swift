import Logging
import ServiceLifecycle
import Storage
import TuyaController
import TuyaCore

/// What the daemon tells its supervisor, as the last service of the group: ready (with the
/// device count) once the bridge, the timer and the metrics listener are up, and stopping
/// as the first thing a shutdown does.
struct DaemonLifecycle: Service {
    let hooks: GatewayDaemon.Hooks
    /// Every service the daemon is ready after.
    let startedServices: [Readiness]
    let controller: TuyaController
    let database: GatewayDatabase
    let library: ProfileLibrary
    let topics: BridgeTopics
    let logger: Logger

    func run() async {
        var ready = true
        for service in startedServices where await !service.waitUnlessStopping() { ready = false }
        if ready { await announceReady() }
        await shutdownRequested("daemon", logger: logger)
        guard ready else { return }
        hooks.stopping()
        logger.info("shutting down: finishing requests under way")
    }

    private func announceReady() async {
        let count = await controller.devices().count
        await warnAboutUnloadedDevices()
        hooks.ready("\(count) devices, bridge on \(topics.base)/bridge")
        logger.info("ready: \(count) paired devices, bridge API on \(topics.base)/bridge/#")
    }

    /// A stored device whose profile no longer loads (deleted, or broken by an edit) is
    /// kept in the database but cannot be driven: say so, with the fix.
    private func warnAboutUnloadedDevices() async {
        guard let stored = try? await database.loadDevices() else { return }
        for record in stored where await controller.device(record.device.id) == nil {
            let reason =
                library.profile(id: record.device.profileID) == nil
                ? "its profile \(record.device.profileID) is not loaded (restore the profile file or fix its errors above)"
                : "its stored local key is unusable (rekey it)"
            logger.warning("device \(record.device.name) (\(record.device.id)) is not active: \(reason)")
        }
    }
}
