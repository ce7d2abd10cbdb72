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
        hooks.ready("\(count) devices, bridge on \(topics.base)/bridge")
        logger.info("ready: \(count) paired devices, bridge API on \(topics.base)/bridge/#")
    }
}
