import Logging
import ServiceLifecycle

/// `GET /metrics` in the daemon's service group, on `metrics.listen` when `metrics.enabled`.
/// A listen address that cannot be used is logged and the gateway carries on without
/// metrics: devices matter more. Stopped first at shutdown.
struct MetricsService: Service {
    let settings: GatewayConfiguration.Metrics
    let bridge: BridgeServer
    let metrics: GatewayMetrics
    let bridgeReady: Readiness
    let ready: Readiness
    /// Told the port once listening.
    let listening: @Sendable (Int) -> Void
    let logger: Logger

    func run() async {
        guard settings.enabled else {
            ready.succeed()
            await shutdownRequested("metrics", logger: logger)
            return
        }
        guard await bridgeReady.waitUnlessStopping() else {
            ready.fail()
            await shutdownRequested("metrics", logger: logger)
            return
        }
        // Up, or carrying on without metrics: either way the daemon is ready.
        let server = await listen()
        ready.succeed()
        await shutdownRequested("metrics", logger: logger)
        await server?.stop()
    }

    private func listen() async -> MetricsServer? {
        let bridge = bridge
        let metrics = metrics
        do {
            let server = try await MetricsServer.start(
                host: settings.listen.host, port: settings.listen.port, logger: logger
            ) {
                await bridge.refreshMetrics()
                return metrics.exposition()
            }
            let address = GatewayConfiguration.ListenAddress(host: settings.listen.host, port: server.port)
            logger.info("Prometheus metrics on http://\(address)/metrics")
            listening(server.port)
            return server
        } catch {
            logger.error("metrics are not served: cannot listen on \(settings.listen) (\(error)); fix metrics.listen")
            return nil
        }
    }
}
