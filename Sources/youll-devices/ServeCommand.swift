import ArgumentParser
import Foundation
import Gateway
import Logging
import ServiceLifecycle

/// `youll-devices serve`: the daemon. Runs until SIGTERM or SIGINT, then shuts down
/// gracefully (see `GatewayDaemon`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the gateway daemon: pair and drive devices, serve the MQTT bridge API.",
        discussion: """
            Configuration: --config PATH, else /etc/youll-devices/config.yaml, else \
            $XDG_CONFIG_HOME/youll-devices/config.yaml; YOULL_* environment variables override \
            the file (YOULL_MQTT_URL, YOULL_BASE_TOPIC, YOULL_STATE_DIRECTORY, …). With none of \
            them: broker mqtt://127.0.0.1:1883, base topic "youll".
            """)

    @Option(name: .long, help: "The configuration file (YAML).")
    var config: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let isService = ConfigurationLoader.isService(environment: environment)
        let configuration: GatewayConfiguration
        do {
            configuration = try ConfigurationLoader.load(path: config, environment: environment, isService: isService)
        } catch {
            FileHandle.standardError.write(Data("error: configuration refused: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let level = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "youll-devices")
        let daemon = GatewayDaemon(
            configuration: configuration,
            profileDirectories: ProfileDirectories.daemon(
                installed: configuration.profiles.installed, user: configuration.profiles.user),
            version: YoullDevices.configuration.version, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [daemon], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            logger.critical("\(error)")
            FileHandle.standardError.write(Data("error: \(Self.unwrap(error))\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The service group wraps a service's failure; the user needs the failure itself.
    private static func unwrap(_ error: any Error) -> String {
        String(describing: error)
    }
}
