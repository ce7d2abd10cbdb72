import BLELink
import Foundation
import TuyaCore
import Storage

/// `youll-devices doctor`: checks everything the daemon needs, in the order a user would fix
/// them, and says for each what it found and what to do.
///
/// The machine is reached through the injected parts (`now`, `probeBluetooth`,
/// `observeBroker`, `inspectState`), so each verdict is tested with crafted observations and
/// the whole with the real ones. Doctor only reads: it creates, repairs and starts nothing.
public struct Doctor: Sendable {
    /// `--config`; nil searches the default locations as `serve` does.
    public var configurationPath: String?
    public var environment: [String: String]
    public var isService: Bool
    public var now: @Sendable () -> Date
    public var probeBluetooth: @Sendable (String) throws(BLEUnavailable) -> BluetoothAdapter
    /// Opens the gateway's own HCI host on `ble.transport` (when not `bluez`) and closes it.
    public var openController: @Sendable (BLETransportSetting) async -> Result<HCIControllerInfo, HCIHostError>
    public var observeBroker: @Sendable (GatewayConfiguration) async -> BrokerObservation
    /// Whether the broker lets in clients without credentials (asked once the broker let doctor in).
    public var observeAnonymous: @Sendable (GatewayConfiguration) async -> BrokerObservation.AnonymousAccess?
    public var inspectState: @Sendable (String) -> StateDirectoryInspection
    /// Whether a daemon holds the state directory (its lock), whatever the broker says.
    public var daemonHoldsState: @Sendable (String) -> Bool = { path in
        GatewayDatabase.isDaemonRunning(in: URL(fileURLWithPath: path))
    }
    public var loadProfiles: @Sendable ([URL]) -> ProfileLibrary
    /// The folders the daemon would read profiles from (the CLI adds a source checkout's
    /// `devices/`, as `serve` does); by default the configured installed and user folders.
    public var profileDirectories: @Sendable (GatewayConfiguration.ProfileFolders) -> [URL] = { folders in
        [folders.installed, folders.user].map { URL(fileURLWithPath: $0) }
    }
    /// Binds the configured LAN discovery ports, listens for devices' broadcasts, and lets
    /// the ports go: who was heard, and the ports that failed.
    public var scanLAN: @Sendable (GatewayConfiguration.LAN) async -> LANScan
    /// The webhook's undelivered alerts in the state directory's database (read-only).
    public var inspectOutbox: @Sendable (String) -> Result<GatewayDatabase.OutboxSummary?, StorageError>
    /// The running daemon's `health_check` answer (asked only when its bridge is online).
    public var daemonHealth: @Sendable (GatewayConfiguration) async -> JSONValue?

    /// The real machine: the system clock, the kernel's Bluetooth, the configured broker
    /// (`brokerTimeout` for the connect and for the echo), the file system, and `lanListen`
    /// of listening for LAN devices' broadcasts (zero only checks the ports can be bound).
    public init(
        configurationPath: String?, environment: [String: String], brokerTimeout: Duration = .seconds(5),
        lanListen: Duration = .seconds(6)
    ) {
        self.configurationPath = configurationPath
        self.environment = environment
        isService = ConfigurationLoader.isService(environment: environment)
        now = { Date() }
        probeBluetooth = { adapter throws(BLEUnavailable) in try BluetoothAvailability.probe(adapter: adapter) }
        openController = { await DoctorCheck.openController($0) }
        observeBroker = { await BrokerProbe(gateway: $0, timeout: brokerTimeout).observe() }
        observeAnonymous = { await BrokerProbe(gateway: $0, timeout: brokerTimeout).observeAnonymousAccess() }
        inspectState = { StateDirectoryInspection.inspect($0) }
        inspectOutbox = { path in
            Result { () throws(StorageError) in
                try GatewayDatabase.outboxSummaryReadOnly(directory: URL(fileURLWithPath: path))
            }
        }
        loadProfiles = { ProfileLibrary.load(directories: $0) }
        scanLAN = { await LANScan.listen($0, for: lanListen) }
        daemonHealth = { configuration in
            guard let client = try? BridgeClient(configuration: configuration) else { return nil }
            defer { Task { await client.close() } }
            guard (try? await client.connect(timeout: brokerTimeout)) != nil else { return nil }
            return try? await client.request("health_check", timeout: brokerTimeout)
        }
    }

    /// Runs every check. Without a valid configuration only the checks that need none follow.
    public func run() async -> [DoctorCheck] {
        var environment = environment
        if environment["HOME", default: ""].isEmpty {
            environment["HOME"] = FileManager.default.homeDirectoryForCurrentUser.path
        }
        let file = try? ConfigurationLoader.configurationFile(
            explicit: configurationPath, environment: environment, files: .system)
        let loaded: Result<GatewayConfiguration, ConfigurationError> = Result { () throws(ConfigurationError) in
            try ConfigurationLoader.load(path: configurationPath, environment: environment, isService: isService)
        }
        var checks = [
            DoctorCheck.configuration(
                loaded, file: file, searched: ConfigurationLoader.searchPaths(environment: environment))
        ]
        if case .success(let configuration) = loaded {
            // The LAN listen takes seconds: it runs while the other checks do.
            async let lanScan = scanLAN(configuration.lan)
            let observation = await observeBroker(configuration)
            checks += DoctorCheck.broker(
                observation, broker: configuration.mqtt.broker.description, user: configuration.mqtt.username,
                baseTopic: configuration.baseTopic)
            if observation.connection == .connected, let access = await observeAnonymous(configuration) {
                checks.append(DoctorCheck.anonymousAccess(access, baseTopic: configuration.baseTopic))
            }
            let daemonOnline =
                if case .retained(let payload) = observation.bridgeState {
                    DoctorCheck.bridgeStateValue(payload) == "online"
                } else { false }
            if configuration.ble.transport.usesOwnHost, configuration.ble.mode != .off {
                // With the broker down the bridge says nothing: the state lock still tells a
                // daemon that holds the controller (a second opener of a UART would take its bytes).
                let held = daemonOnline || daemonHoldsState(configuration.stateDirectory)
                let opened = held ? nil : await openController(configuration.ble.transport)
                checks.append(DoctorCheck.hciTransport(configuration.ble, opened: opened))
            } else {
                checks.append(DoctorCheck.bluetooth(configuration.ble, probe: probeBluetooth))
            }
            let health = daemonOnline ? await daemonHealth(configuration) : nil
            if let links = DoctorCheck.bleLinks(health: health) { checks.append(links) }
            if let database = DoctorCheck.database(health: health) { checks.append(database) }
            checks.append(DoctorCheck.lan(configuration.lan, scan: await lanScan))
            checks.append(
                DoctorCheck.stateDirectory(configuration.stateDirectory, inspectState(configuration.stateDirectory)))
            if configuration.maintenance.enabled, configuration.maintenance.webhook != nil {
                checks.append(DoctorCheck.webhook(inspectOutbox(configuration.stateDirectory)))
            }
            let folders = configuration.profiles
            let directories = profileDirectories(folders)
            checks += DoctorCheck.profiles(loadProfiles(directories), folders: folders, searched: directories)
        }
        checks.append(DoctorCheck.clock(now: now()))
        return checks
    }
}
