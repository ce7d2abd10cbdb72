import Timing
import Foundation
import Logging
import Maintenance
import Storage
import TuyaController
import TuyaCore

extension GatewayDaemon {
    /// The maintenance service while it runs in the daemon.
    struct MaintenanceRun {
        let service: MaintenanceService
        let task: Task<Void, Never>

        /// Stops ticking and following events after the update under way is stored.
        func stop() async {
            task.cancel()
            await task.value
        }
    }

    /// Builds the maintenance service (nil when `maintenance.enabled` is false) and connects
    /// it to the bridge both ways; `startMaintenance` runs it.
    func makeMaintenance(
        controller: TuyaController, database: GatewayDatabase, library: ProfileLibrary, bridge: BridgeServer
    ) async -> MaintenanceService? {
        let config = configuration.maintenance
        guard config.enabled else {
            logger.info("maintenance reminders are switched off (maintenance.enabled: false)")
            return nil
        }
        let store = SQLiteMaintenanceStore(database: database)
        var webhook: WebhookDelivery?
        if let settings = config.webhook {
            webhook = WebhookDelivery(
                endpoint: settings.url, poster: WebhookPoster(), outbox: store, clock: ContinuousClock(),
                backoff: Backoff(initial: settings.retryInitial, maximum: settings.retryMaximum),
                headers: settings.headers,
                onFailure: { [weak bridge] id, attempts, reason in
                    await bridge?.emit(
                        "maintenance_delivery_failed",
                        ["id": .string(id), "attempts": .integer(Int64(attempts)), "reason": .string(reason)])
                })
            // The description drops the query and header values, which may be secrets.
            logger.info("maintenance alerts go to the webhook \(settings)")
        }
        var settings = MaintenanceService.Settings()
        settings.universalLinkHosts = Set(configuration.universalLinkHosts)
        let service = MaintenanceService(
            controller: controller, library: library, store: store, webhook: webhook, settings: settings,
            logger: logger)
        await service.setPublisher(bridge)
        await bridge.attach(maintenance: service)
        return service
    }

    func startMaintenance(_ service: MaintenanceService?) -> MaintenanceRun? {
        guard let service else { return nil }
        return MaintenanceRun(service: service, task: Task { await service.run() })
    }
}
