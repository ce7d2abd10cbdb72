import Foundation
import Gateway
import LocalBroker
import Logging
import MQTTLink
import Storage
import Testing
import TuyaController
import TuyaCore
import YoullTestSupport

/// `bridge/health` on the bridge's own clock: a real mosquitto on a free port, the real
/// controller and bridge with a real SQLite state directory, and a `ManualClock` for the minute.
@Suite("bridge/health on the bridge's clock", .timeLimit(.minutes(1)))
struct BridgeHealthTests {
    static let timeout = Duration.seconds(20)

    @Test("the bridge publishes its health when it connects and again each time a minute passes on its clock")
    func everyMinute() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let database = try GatewayDatabase.open(directory: state)
        var configuration = GatewayConfiguration(
            stateDirectory: state.path,
            profiles: .init(installed: Repository.devicesDirectory.path, user: "/nonexistent"))
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: broker.port)
        configuration.metrics.enabled = false
        let library = Repository.shippedProfiles
        var busConfiguration = configuration.mqttLinkConfiguration()
        busConfiguration.clientID = configuration.effectiveClientID + "-devices"
        let controller = TuyaController(
            bus: try MQTTDeviceBus(configuration: busConfiguration), library: library,
            store: SQLiteDeviceStore(database: database))
        try await controller.start()
        let topics = BridgeTopics(base: "youll")
        let clock = ManualClock()
        let logger = Logger(label: "bridge-health-test")
        let bridgeClient = try MQTTClient(
            configuration: configuration.mqttLinkConfiguration(lastWill: BridgeServer.lastWill(topics: topics)))
        let bridge = BridgeServer(
            settings: .init(
                topics: topics, permitJoinDefault: .seconds(60),
                backupDirectory: state.appendingPathComponent("backups"),
                info: BridgeInfo(
                    bleAdapter: nil, version: "test", publicKey: nil, auth: false,
                    config: .init(
                        baseTopic: "youll", mqtt: "test", stateDirectory: state.path, ble: "off", lan: "off",
                        logLevel: "info", permitJoinDefaultSeconds: 60))),
            client: bridgeClient,
            publisher: BridgePublisher(
                topics: topics, client: bridgeClient, database: database, metrics: GatewayMetrics(), logger: logger),
            controller: controller, database: database, library: library, logger: logger, clock: clock)
        let client = try BridgeClient(configuration: configuration)
        try await client.connect(timeout: Self.timeout)
        var health = try await client.subscribe([topics.health]).makeAsyncIterator()

        try await bridge.start()
        let first = try #require(await health.next()?.json)
        #expect(first["devices"]?["online"] == .integer(0))
        #expect(first["session"] == .null)
        // Maintenance is not attached: no reminder count rather than a false zero.
        #expect(first["reminders_due"] == .null)

        // A request in between: the next health counts it among the messages received.
        _ = try await client.request("health_check", timeout: Self.timeout)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        let second = try #require(await health.next()?.json)
        let inBefore = first["mqtt"]?["messages_in"]?.int64Value ?? 0
        let outBefore = first["mqtt"]?["messages_out"]?.int64Value ?? 0
        #expect((second["mqtt"]?["messages_in"]?.int64Value ?? 0) > inBefore)
        #expect((second["mqtt"]?["messages_out"]?.int64Value ?? 0) > outBefore)

        // And again a minute later: the loop goes on.
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        #expect(await health.next()?.json != nil)

        await bridge.refuseNewRequests()
        await controller.stop()
        await bridge.finish()
        try database.close()
        await client.close()
    }
}
