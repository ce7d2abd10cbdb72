import Logging

extension GatewayDaemon {
    /// Serves `GET /metrics` on `metrics.listen` when `metrics.enabled`. A listen address that
    /// cannot be used is logged and the gateway carries on without metrics: devices matter more.
    func startMetrics(bridge: BridgeServer, metrics: GatewayMetrics) async -> MetricsServer? {
        let settings = configuration.metrics
        guard settings.enabled else { return nil }
        do {
            let server = try await MetricsServer.start(
                host: settings.listen.host, port: settings.listen.port, logger: logger
            ) {
                await bridge.refreshMetrics()
                return metrics.exposition()
            }
            let address = GatewayConfiguration.ListenAddress(host: settings.listen.host, port: server.port)
            logger.info("Prometheus metrics on http://\(address)/metrics")
            hooks.metricsListening(server.port)
            return server
        } catch {
            logger.error("metrics are not served: cannot listen on \(settings.listen) (\(error)); fix metrics.listen")
            return nil
        }
    }
}
