import BLELink
import Foundation
import Logging
import MQTTLink
import ServiceLifecycle
import Storage
import TuyaController
import TuyaCore

/// `youll-devices serve`: the daemon as one `Service` for a `ServiceGroup`.
///
/// Start: take the state directory's lock (one daemon per directory; `restore` refuses
/// while it is held), open the database, load profiles, start the controller (paired
/// devices come online on their own; none is waited for), then the bridge API, then tell
/// systemd it is ready. Graceful shutdown (SIGTERM/SIGINT): refuse new requests and let
/// those under way answer, stop the controller, record its last reports, publish the
/// bridge's `offline` state, disconnect, close the database.
public struct GatewayDaemon: Service {
    /// What the daemon tells its supervisor (systemd's notify socket in `serve`).
    public struct Hooks: Sendable {
        public var ready: @Sendable (_ status: String) -> Void
        public var status: @Sendable (_ status: String) -> Void
        public var stopping: @Sendable () -> Void
        /// Runs for the daemon's whole life, until cancelled (systemd's watchdog pings).
        public var watchdog: @Sendable () async -> Void
        /// The metrics server listens on this port (useful when `metrics.listen` asks for port 0).
        public var metricsListening: @Sendable (_ port: Int) -> Void

        public init(
            ready: @escaping @Sendable (String) -> Void = { _ in },
            status: @escaping @Sendable (String) -> Void = { _ in },
            stopping: @escaping @Sendable () -> Void = {},
            watchdog: @escaping @Sendable () async -> Void = {},
            metricsListening: @escaping @Sendable (_ port: Int) -> Void = { _ in }
        ) {
            self.ready = ready
            self.status = status
            self.stopping = stopping
            self.watchdog = watchdog
            self.metricsListening = metricsListening
        }
    }

    public let configuration: GatewayConfiguration
    /// Profile folders in override order (later wins).
    public let profileDirectories: [URL]
    public let version: String
    let logger: Logger
    let hooks: Hooks
    /// Replaces the BlueZ radio (the demo and tests pass socketpairs to simulated peripherals).
    let radio: BLERadio?

    /// - Parameter radio: how BLE devices are reached; nil (the default) probes the
    ///   configured adapter and uses BlueZ when it works.
    public init(
        configuration: GatewayConfiguration, profileDirectories: [URL], version: String, logger: Logger,
        hooks: Hooks = Hooks(), radio: BLERadio? = nil
    ) {
        self.configuration = configuration
        self.profileDirectories = profileDirectories
        self.version = version
        self.logger = logger
        self.hooks = hooks
        self.radio = radio
    }

    public func run() async throws {
        // Pinging from the start: waiting for the broker or a slow shutdown are not hangs.
        let watchdog = Task { await hooks.watchdog() }
        defer { watchdog.cancel() }
        let directory = URL(fileURLWithPath: configuration.stateDirectory)
        let lock: DaemonLock
        do {
            lock = try GatewayDatabase.acquireDaemonLock(in: directory)
        } catch {
            throw GatewayStartError(String(describing: error))
        }
        defer { withExtendedLifetime(lock) {} }
        let database: GatewayDatabase
        do {
            database = try GatewayDatabase.open(directory: directory)
        } catch {
            throw GatewayStartError(String(describing: error))
        }
        for notice in database.notices { logger.notice("\(notice)") }

        let ownHost = ownHostLink()
        let ble = if let ownHost { try await checkOwnHost(ownHost) } else { try checkBluetooth() }
        let library = ProfileLibrary.load(directories: profileDirectories)
        for error in library.errors { logger.warning("profile skipped: \(error)") }
        logger.info(
            "youll-devices \(version) starting: \(library.all.count) profiles, state in \(directory.path), broker \(configuration.mqtt)"
        )
        if library.all.isEmpty {
            logger.warning(
                "no device profiles found in \(profileDirectories.map(\.path).joined(separator: ", ")); devices cannot be paired"
            )
        }

        let radio: BLERadio =
            switch ble {
            case .available(let adapter):
                self.radio ?? ownHost.map { .hci($0, connectionLimit: configuration.ble.maxConnections) }
                    ?? .bluez(adapter: adapter, connectionLimit: configuration.ble.maxConnections)
            case .unavailable(let reason): .unavailable(reason: reason)
            }
        guard let controller = try await startController(library: library, database: database, radio: radio) else {
            // Shut down while waiting for the broker.
            try? database.close()
            return
        }
        let topics = BridgeTopics(base: configuration.baseTopic)
        let bridgeClient: MQTTClient
        do {
            bridgeClient = try MQTTClient(
                configuration: configuration.mqttLinkConfiguration(lastWill: BridgeServer.lastWill(topics: topics)))
        } catch {
            await controller.stop()
            throw GatewayStartError("the bridge's MQTT client: \(error)")
        }
        var bridgeSettings = BridgeServer.Settings(
            topics: topics, permitJoinDefault: configuration.permitJoinTimeout,
            backupDirectory: directory.appendingPathComponent("backups"), info: info(bleAdapter: ble.adapter),
            ble: ble)
        bridgeSettings.bleScanner = radio.makeScanner
        if configuration.homeAssistant.enabled {
            bridgeSettings.homeAssistant = HADiscoveryConfiguration(
                discovery: .init(prefix: configuration.homeAssistant.prefix, version: version),
                ledgerFile: HADiscoveryConfiguration.ledgerFile(inStateDirectory: directory))
        }
        let bridge = BridgeServer(
            settings: bridgeSettings,
            client: bridgeClient, controller: controller, database: database, library: library, logger: logger)
        let maintenanceService = await makeMaintenance(
            controller: controller, database: database, library: library, bridge: bridge)
        do {
            try await bridge.start()
        } catch {
            await controller.stop()
            await bridge.finish()
            throw GatewayStartError("the bridge could not connect to \(configuration.mqtt): \(error)")
        }
        let maintenance = startMaintenance(maintenanceService)
        let sessions = await startSessions(
            controller: controller, database: database, bridge: bridge, library: library)
        // Maintenance alerts wait while a session runs (also one resumed at start).
        if let maintenanceService {
            await sessions.onActiveChange { running in
                Task { await maintenanceService.setSessionRunning(running) }
            }
            if await sessions.isActive { await maintenanceService.setSessionRunning(true) }
        }
        let metricsServer = await startMetrics(bridge: bridge, metrics: bridgeSettings.metrics)
        let count = await controller.devices().count
        await warnAboutUnloadedDevices(controller: controller, database: database, library: library)
        hooks.ready("\(count) devices, bridge on \(topics.base)/bridge")
        logger.info("ready: \(count) paired devices, bridge API on \(topics.base)/bridge/#")

        // Returns when the service group starts a graceful shutdown (SIGTERM, SIGINT).
        try? await gracefulShutdown()

        hooks.stopping()
        logger.info("shutting down: finishing requests under way")
        await metricsServer?.stop()
        await bridge.refuseNewRequests()
        await sessions.suspend()
        await maintenance?.stop()
        await controller.stop()
        await bridge.finish()
        do {
            try database.close()
        } catch {
            logger.error("closing the database: \(error)")
        }
        logger.info("stopped")
    }

    /// `ble.enabled: on` refuses to start without a working adapter; `auto` carries on
    /// with Wi-Fi devices only and says why; `off` does not look. Returns the adapter's
    /// description when BLE can be used.
    private func checkBluetooth() throws -> BLESupport {
        if let radio, configuration.ble.mode != .off {
            let adapter = radio.adapter ?? "injected"
            logger.info("BLE through the radio given to the daemon (\(adapter))")
            return .available(adapter: adapter)
        }
        guard configuration.ble.mode != .off else {
            logger.info("BLE is switched off in the configuration")
            return .unavailable(reason: "switched off in the configuration (ble.enabled: off)")
        }
        do {
            let adapter = try BluetoothAvailability.probe(adapter: configuration.ble.adapter)
            logger.info("BLE adapter \(adapter.name) (\(adapter.address)) is available")
            return .available(adapter: adapter.name)
        } catch {
            if configuration.ble.mode == .on {
                throw GatewayStartError("BLE is required (ble.enabled: on) but cannot be used: \(error)")
            }
            logger.notice("BLE unavailable, continuing with Wi-Fi devices only: \(error)")
            return .unavailable(reason: error.description)
        }
    }

    /// Starts the controller, retrying while the broker cannot be reached (it may start
    /// after the gateway at boot). A broker that refuses the credentials or the TLS
    /// settings stops the start: retrying cannot fix that. Returns nil when a graceful
    /// shutdown came first.
    private func startController(library: ProfileLibrary, database: GatewayDatabase, radio: BLERadio) async throws
        -> TuyaController?
    {
        var delay = Duration.seconds(1)
        while true {
            var busConfiguration = configuration.mqttLinkConfiguration()
            busConfiguration.clientID = configuration.effectiveClientID + "-devices"
            let bus: MQTTDeviceBus
            do {
                bus = try MQTTDeviceBus(configuration: busConfiguration)
            } catch {
                throw GatewayStartError("the device bus's MQTT client: \(error)")
            }
            var settings = TuyaController.Configuration()
            settings.confirmationTimeout = configuration.devices.confirmationTimeout
            settings.queryInterval = configuration.devices.queryInterval
            let controller = TuyaController(
                bus: bus, library: library, store: SQLiteDeviceStore(database: database), radio: radio,
                configuration: settings)
            do {
                try await controller.start()
                return controller
            } catch let error as MQTTError where Self.isTransient(error) {
                logger.warning("broker \(configuration.mqtt) not reachable (\(error)); retrying in \(delay)")
                hooks.status("waiting for the broker at \(configuration.mqtt)")
            } catch {
                throw GatewayStartError("cannot use the broker \(configuration.mqtt): \(error)")
            }
            let wait = delay
            let shutDown = await cancelWhenGracefulShutdown {
                (try? await Task.sleep(for: wait)) == nil
            }
            if shutDown || Task.isCancelled || Task.isShuttingDownGracefully { return nil }
            delay = min(delay * 2, .seconds(30))
        }
    }

    /// A stored device whose profile no longer loads (deleted, or broken by an edit) is
    /// kept in the database but cannot be driven: say so, with the fix.
    private func warnAboutUnloadedDevices(
        controller: TuyaController, database: GatewayDatabase, library: ProfileLibrary
    ) async {
        guard let stored = try? await database.loadDevices() else { return }
        for record in stored where await controller.device(record.device.id) == nil {
            let reason =
                library.profile(id: record.device.profileID) == nil
                ? "its profile \(record.device.profileID) is not loaded (restore the profile file or fix its errors above)"
                : "its stored local key is unusable (rekey it)"
            logger.warning("device \(record.device.name) (\(record.device.id)) is not active: \(reason)")
        }
    }

    static func isTransient(_ error: MQTTError) -> Bool {
        switch error {
        case .connectionRefused, .hostNotFound, .network, .timedOut, .connectionLost: true
        default: false
        }
    }

    /// `bridge/info`: what is useful to see, nothing secret (the broker address is shown
    /// without its password).
    private func info(bleAdapter: String?) -> [String: JSONValue] {
        [
            "ble_adapter": bleAdapter.map(JSONValue.string) ?? .null,
            "version": .string(version),
            "config": .object([
                "base_topic": .string(configuration.baseTopic),
                "mqtt": .string(configuration.mqtt.description),
                "state_directory": .string(configuration.stateDirectory),
                "ble": .string(configuration.ble.mode.rawValue),
                "log_level": .string(configuration.logLevel.rawValue),
                "permit_join_default_seconds": .integer(configuration.permitJoinTimeout.components.seconds),
            ]),
        ]
    }
}

/// Why the daemon could not start; the message names the part and the fix.
public struct GatewayStartError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
