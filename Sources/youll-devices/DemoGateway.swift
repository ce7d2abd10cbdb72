import Foundation
import Gateway
import Logging
import ServiceLifecycle
import TuyaController

/// The gateway the demo runs in its own process, as `youll-devices serve` would run it: a
/// temporary state directory, the demo's broker, its simulated BLE radio.
enum DemoGateway {
    /// The configuration: state in `stateDirectory`, the broker on `brokerPort`, the installed
    /// profiles from the first of `directories`, metrics on a port of the kernel's choosing
    /// (a running `serve` may hold 9464).
    static func configuration(stateDirectory: String, brokerPort: Int, directories: [URL]) -> GatewayConfiguration {
        var configuration = GatewayConfiguration(
            stateDirectory: stateDirectory,
            profiles: .init(
                installed: directories.first?.path ?? "/usr/share/youll-devices/devices", user: "/nonexistent"))
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: brokerPort)
        configuration.metrics.listen = .init(host: "127.0.0.1", port: 0)
        // The LAN bulb is paired by its address: no listening on the machine's UDP 6666/6667/7000.
        configuration.lan.discoveryPorts = []
        return configuration
    }

    /// Starts the daemon in a service group of its own; errors only are logged, to stderr.
    static func start(
        _ configuration: GatewayConfiguration, directories: [URL], radio: BLERadio,
        metricsListening: @escaping @Sendable (Int) -> Void
    ) -> (group: ServiceGroup, running: Task<Void, any Error>) {
        var logger = Logger(label: "youll-devices") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .error
        let daemon = GatewayDaemon(
            configuration: configuration, profileDirectories: directories, version: YoullDevices.configuration.version,
            logger: logger, hooks: .init(metricsListening: metricsListening), radio: radio)
        let group = ServiceGroup(configuration: .init(services: [daemon], logger: logger))
        return (group, Task { try await group.run() })
    }

    /// A bridge client connected once the gateway's bridge says online (or the gateway failed).
    static func connect(_ configuration: GatewayConfiguration, gateway: Task<Void, any Error>) async throws
        -> BridgeClient
    {
        let client = try BridgeClient(configuration: configuration)
        try await client.connect(timeout: .seconds(10))
        for _ in 0..<100 {
            if (try? await client.requireDaemonOnline(timeout: .seconds(2))) != nil { return client }
            try await Task.sleep(for: .milliseconds(100))
        }
        gateway.cancel()
        await client.close()
        throw CLIError("the gateway did not come online")
    }
}
