import BLELink
import Foundation
import Logging
import ServiceLifecycle
import Storage
import TuyaController
import TuyaCore

/// `youll-devices serve`: the daemon as one `Service` for a `ServiceGroup`, itself a group
/// of services (as Hummingbird's `Application` is): the device controller, the bridge, its
/// requests, maintenance, the timer, metrics and the supervisor's notifications, each with
/// its dependencies passed to `init` (`GatewayServices`).
///
/// Start: take the state directory's lock (one daemon per directory; `restore` refuses
/// while it is held), open the database, load profiles, start the controller (paired
/// devices come online on their own; none is waited for), then the bridge API, then the
/// rest, then tell systemd it is ready. Graceful shutdown (SIGTERM/SIGINT) stops them in
/// reverse order: refuse new requests and let those under way answer, suspend the timer,
/// stop maintenance, stop the controller, record its last reports, publish the bridge's
/// `offline` state, disconnect; then the database is closed.
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

    public private(set) var configuration: GatewayConfiguration
    /// Profile folders in override order (later wins).
    public let profileDirectories: [URL]
    public let version: String
    let logger: Logger
    let hooks: Hooks
    /// Replaces the BlueZ radio (the demo and tests pass socketpairs to simulated peripherals).
    let radio: BLERadio?
    /// The bridge's token, key and client id suffix, once loaded from the state directory.
    var identity: BridgeIdentity?

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
        let database: GatewayDatabase
        do {
            lock = try GatewayDatabase.acquireDaemonLock(in: directory)
            database = try GatewayDatabase.open(directory: directory)
        } catch {
            throw GatewayStartError(String(describing: error))
        }
        defer { withExtendedLifetime(lock) {} }
        for notice in database.notices { logger.notice("\(notice)") }
        var daemon = self
        do {
            let identity = try BridgeIdentity.loadOrCreate(
                stateDirectory: directory, tokenFile: configuration.effectiveTokenFile)
            for notice in identity.notices { logger.notice("\(notice)") }
            daemon.identity = identity
            daemon.configuration.mqtt.clientIDSuffix = identity.clientIDSuffix
        } catch {
            try? database.close()
            throw GatewayStartError(String(describing: error))
        }
        let outcome = await Result(catching: { [daemon] in
            try await daemon.run(database: database, directory: directory)
        })
        // Desired states the controller queued last are written before the file closes.
        await database.flushQueuedStates()
        do {
            try database.close()
        } catch {
            logger.error("closing the database: \(error)")
        }
        try outcome.get()
        logger.info("stopped")
    }

    /// Everything between opening the database and closing it.
    private func run(database: GatewayDatabase, directory: URL) async throws {
        let ownHost = ownHostLink()
        let ble = if let ownHost { try await checkOwnHost(ownHost) } else { try checkBluetooth() }
        let library = loadProfiles(stateDirectory: directory)
        let radio = radio(for: ble, ownHost: ownHost)
        guard let controller = try await startController(library: library, database: database, radio: radio)
        else { return }  // Shut down while waiting for the broker.
        let services = GatewayServices(
            daemon: self, controller: controller, database: database, library: library, ble: ble,
            bleScanner: radio.makeScanner, stateDirectory: directory)
        let group = ServiceGroup(
            configuration: .init(services: try services.configurations(), logger: logger))
        try await group.run()
    }

    private func loadProfiles(stateDirectory: URL) -> ProfileLibrary {
        let library = ProfileLibrary.load(
            directories: profileDirectories, defaultFrameGap: configuration.devices.frameGapMilliseconds)
        for error in library.errors { logger.warning("profile skipped: \(error)") }
        logger.info(
            "youll-devices \(version) starting: \(library.all.count) profiles, state in \(stateDirectory.path), broker \(configuration.mqtt)"
        )
        if library.all.isEmpty {
            logger.warning(
                "no device profiles found in \(profileDirectories.map(\.path).joined(separator: ", ")); devices cannot be paired"
            )
        }
        return library
    }

    /// The radio given to the daemon, else this gateway's own HCI host (`ble.transport` other
    /// than `bluez`), else BlueZ on the adapter.
    private func radio(for ble: BLESupport, ownHost: HCIControllerLink?) -> BLERadio {
        switch ble {
        case .available(let adapter):
            radio ?? ownHost.map { .hci($0, connectionLimit: configuration.ble.maxConnections) }
                ?? .bluez(adapter: adapter, connectionLimit: configuration.ble.maxConnections)
        case .unavailable(let reason): .unavailable(reason: reason)
        }
    }
}

/// Why the daemon could not start; the message names the part and the fix.
public struct GatewayStartError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing call, looked at once the cleanup after it is done.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
