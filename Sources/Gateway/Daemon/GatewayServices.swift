import Foundation
import Logging
import MQTTLink
import Maintenance
import ServiceLifecycle
import SessionEngine
import Storage
import Timing
import TuyaController
import TuyaCore

/// The daemon's parts, each built with what it depends on, in the order the service group
/// runs them; the group stops them in reverse. The bridge's publisher is made first: the
/// maintenance service and the timer publish through it, and the bridge's request router
/// hands them its requests.
struct GatewayServices {
    let daemon: GatewayDaemon
    let controller: TuyaController
    let database: GatewayDatabase
    let library: ProfileLibrary
    let ble: BLESupport
    /// The scan a pairing window listens with (the radio's).
    let bleScanner: BLEScannerFactory?
    let stateDirectory: URL

    private var configuration: GatewayConfiguration { daemon.configuration }
    private var logger: Logger { daemon.logger }

    /// Bridge, devices, maintenance (when enabled), timer, requests, metrics, notifications.
    func configurations() throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let topics = BridgeTopics(base: configuration.baseTopic)
        let client: MQTTClient
        do {
            client = try MQTTClient(
                configuration: configuration.mqttLinkConfiguration(lastWill: BridgeServer.lastWill(topics: topics)))
        } catch {
            throw GatewayStartError("the bridge's MQTT client: \(error)")
        }
        let metrics = GatewayMetrics()
        let publisher = BridgePublisher(
            topics: topics, client: client, database: database, metrics: metrics, logger: logger)
        let maintenance = makeMaintenance(publisher: publisher)
        let sessions = makeSessions(publisher: publisher, maintenance: maintenance)
        let bridge = BridgeServer(
            settings: bridgeSettings(topics: topics), client: client, publisher: publisher, controller: controller,
            database: database, library: library, maintenance: maintenance, sessions: sessions, logger: logger)
        let (bridgeReady, timerReady, metricsReady) = (Readiness(), Readiness(), Readiness())
        var services: [any Service] = [
            BridgeService(bridge: bridge, ready: bridgeReady, broker: configuration.mqtt.description, logger: logger),
            ControllerService(controller: controller, logger: logger),
        ]
        if let maintenance {
            services.append(
                MaintenanceRunner(
                    maintenance: maintenance, bridgeReady: bridgeReady, timerReady: timerReady, logger: logger))
        }
        services += [
            TimerService(
                sessions: sessions, publisher: publisher, bridgeReady: bridgeReady, ready: timerReady, logger: logger),
            BridgeRequestsService(bridge: bridge, logger: logger),
            MetricsService(
                settings: configuration.metrics, bridge: bridge, metrics: metrics, bridgeReady: bridgeReady,
                ready: metricsReady, listening: daemon.hooks.metricsListening, logger: logger),
            DaemonLifecycle(
                hooks: daemon.hooks, startedServices: [bridgeReady, timerReady, metricsReady], controller: controller,
                topics: topics, logger: logger),
        ]
        // A part that fails (the bridge cannot connect) stops the others in order, then the
        // daemon fails with its error.
        return services.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) }
    }

    private func bridgeSettings(topics: BridgeTopics) -> BridgeServer.Settings {
        var settings = BridgeServer.Settings(
            topics: topics, permitJoinDefault: configuration.permitJoinTimeout,
            backupDirectory: stateDirectory.appendingPathComponent("backups"),
            info: daemon.info(bleAdapter: ble.adapter), ble: ble)
        settings.bleScanner = bleScanner
        settings.security.tokenFile = configuration.effectiveTokenFile
        settings.security.token = configuration.bridge.auth ? daemon.identity?.token : nil
        settings.security.privateKey = daemon.identity?.privateKey
        settings.security.acceptClearKeys = configuration.bridge.acceptClearKeys
        settings.presets = configuration.timer.presetNames
        settings.universalLinkHosts = Set(configuration.universalLinkHosts)
        if configuration.homeAssistant.enabled {
            var discovery = HADiscovery.Settings(prefix: configuration.homeAssistant.prefix, version: daemon.version)
            discovery.permitJoinButton = !configuration.bridge.auth
            settings.homeAssistant = HADiscoveryConfiguration(
                discovery: discovery,
                ledgerFile: HADiscoveryConfiguration.ledgerFile(inStateDirectory: stateDirectory))
        }
        return settings
    }

    /// The maintenance service; nil when `maintenance.enabled` is false.
    private func makeMaintenance(publisher: BridgePublisher) -> MaintenanceService? {
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
                // Receivers see which gateway and version sent the alert, unless the config names one.
                headers: settings.headers.keys.contains { $0.lowercased() == "user-agent" }
                    ? settings.headers
                    : settings.headers.merging(["User-Agent": "youll-devices/\(daemon.version)"]) { $1 },
                onFailure: { id, attempts, reason in
                    await publisher.emit(
                        "maintenance_delivery_failed",
                        BridgeJSON.object(WebhookFailurePayload(id: id, attempts: attempts, reason: reason)))
                })
            // The description drops the query and header values, which may be secrets.
            logger.info("maintenance alerts go to the webhook \(settings)")
        }
        var settings = MaintenanceService.Settings()
        settings.universalLinkHosts = Set(configuration.universalLinkHosts)
        settings.presets = configuration.timer.presetNames
        return MaintenanceService(
            controller: controller, library: library, store: store, webhook: webhook, publisher: publisher,
            settings: settings, logger: logger)
    }

    /// The timer: sessions stored in SQLite, announced on the bridge, driving the devices of
    /// the Tuya module's controller; maintenance alerts wait while a session runs (also one
    /// resumed at start).
    private func makeSessions(publisher: BridgePublisher, maintenance: MaintenanceService?) -> SessionService {
        let logger = logger
        let store = SQLiteSessionStore(database: database, warn: { logger.warning("\($0)") })
        let tuya: any TuyaModuleInterface = controller
        var settings = SessionService.Settings(configuration.timer, library: library)
        let wallClock = WallClockSync()
        settings.wallClockIsSet = { wallClock.isSet() }
        return SessionService(
            tuyaController: tuya.tuyaController, store: store, settings: settings,
            announce: { await publisher.announce($0) }, log: { logger.log($0) },
            onActiveChange: { maintenance?.sessionChanged(running: $0) })
    }
}
