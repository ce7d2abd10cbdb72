import Foundation
import Gateway
import LocalBroker
import Logging
import ServiceLifecycle
import TuyaController
import TuyaCore

/// The gateway daemon running in the test's process, as `serve` and `demo` run it, and a
/// `BridgeClient` connected to it: what the body of `withRunningDaemon` gets.
public struct RunningDaemon: Sendable {
    /// The configuration the daemon runs with.
    public let configuration: GatewayConfiguration
    /// Connected to the daemon's broker; the bridge's retained `online` state has been seen.
    public let client: BridgeClient
    /// How long the rig's own waits may take.
    public let timeout: Duration

    /// Pairs an MQTT device through `device/add`; returns the response's data.
    @discardableResult
    public func pair(devId: String, localKey: String, as name: String) async throws -> JSONValue {
        try await client.request(
            "device/add", ["id": .string(devId), "local_key": .string(localKey), "name": .string(name)],
            timeout: timeout)
    }
}

/// The configuration `withRunningDaemon` starts from: the state in `state`, the shipped
/// profiles, the broker on loopback at `port`, no metrics server, BLE off.
public func daemonConfiguration(state: URL, brokerPort: Int) -> GatewayConfiguration {
    var configuration = GatewayConfiguration(
        stateDirectory: state.path, profiles: .init(installed: Repository.devicesDirectory.path, user: "/nonexistent"))
    configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: brokerPort)
    configuration.metrics.enabled = false
    configuration.metrics.listen = .init(host: "127.0.0.1", port: 0)
    configuration.ble.mode = .off
    return configuration
}

/// Starts the daemon (one `GatewayDaemon` in a `ServiceGroup`) on `broker` with its state in
/// `state`, waits until its bridge is online, hands it to `body`, and always stops it the
/// way SIGTERM does, also when `body` throws. `configure` changes the configuration of
/// `daemonConfiguration(state:brokerPort:)`; `profiles` is the folder profiles are loaded from.
/// Set `YOULL_TEST_LOG` to see the daemon's log.
public func withRunningDaemon<T>(
    broker: LocalBroker, state: URL, version: String = "test", radio: BLERadio? = nil,
    hooks: GatewayDaemon.Hooks = .init(), timeout: Duration = .seconds(20), profiles: URL = Repository.devicesDirectory,
    configure: (inout GatewayConfiguration) -> Void = { _ in },
    _ body: (RunningDaemon) async throws -> T
) async throws -> T {
    var configuration = daemonConfiguration(state: state, brokerPort: broker.port)
    configure(&configuration)
    var logger = Logger(label: "youll-test-daemon")
    logger.logLevel = ProcessInfo.processInfo.environment["YOULL_TEST_LOG"] == nil ? .critical : .debug
    let daemon = GatewayDaemon(
        configuration: configuration, profileDirectories: [profiles], version: version,
        logger: logger, hooks: hooks, radio: radio)
    let group = ServiceGroup(configuration: .init(services: [daemon], logger: logger))
    let run = Task { try await group.run() }
    let client = try BridgeClient(configuration: configuration)
    let outcome: Result<T, any Error>
    do {
        try await client.connect(timeout: timeout)
        let states = try await client.subscribe([configuration.baseTopic + "/bridge/state"])
        let seconds = Double(timeout.components.seconds)
        _ = try await states.first(within: seconds, "the daemon's bridge to come online") {
            $0.availability == "online"
        }
        outcome = .success(
            try await body(RunningDaemon(configuration: configuration, client: client, timeout: timeout)))
    } catch {
        outcome = .failure(error)
    }
    await group.triggerGracefulShutdown()
    // Bounded: a shutdown that hangs fails the test, naming it, instead of holding the run.
    let stopped = await Result(catching: {
        try await run.value(within: .seconds(60), "the daemon's graceful shutdown")
    })
    await client.close()
    let value = try outcome.get()
    try stopped.get()
    return value
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing call, to be looked at once cleanup is done.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
