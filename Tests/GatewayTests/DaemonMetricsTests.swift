import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Testing
import TuyaCore
import YoullTestSupport

/// Health and metrics through the whole daemon: a real mosquitto on a free port, a simulated
/// MQTT light, a real SQLite state directory, the bridge API through `BridgeClient`, and the
/// metrics endpoint on a free loopback port scraped over HTTP.
@Suite("Health and metrics through the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonMetricsTests {
    static let timeout = Duration.seconds(20)

    @Test("driving a simulated light moves the command counters and device gauges; bridge/health reports it")
    func countersMove() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 31), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        defer { fleet.stop() }
        #expect(await fleet.waitUntilConnected(timeout: Self.timeout))
        let identity = try #require(fleet.identities.first)

        let port = ListeningPort()
        let metricsPort = try await withRunningDaemon(
            broker: broker, state: state, hooks: .init(metricsListening: { bound in port.set(bound) }),
            configure: { $0.metrics.enabled = true }
        ) { daemon in
            let client = daemon.client
            try await Self.expectFirstHealth(client)

            let metricsPort = try #require(port.port)
            let before = try await HTTPScrape.get(port: metricsPort, path: "/metrics")
            #expect(before.status == 200)
            #expect(HTTPScrape.sample("youll_commands_sent_total", in: before.body) == 0)

            _ = try await client.request(
                "device/add",
                ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string("lamp")],
                timeout: Self.timeout)
            _ = try await client.set(device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
            _ = try await client.request(
                "deeplink/resolve", ["url": .string("youll://tuya/devices/\(identity.devId)")], timeout: Self.timeout)

            let after = try await HTTPScrape.get(port: metricsPort, path: "/metrics")
            Self.expectCountersAfterDriving(after.body)
            // Nothing secret in the exposition.
            #expect(!after.body.contains(identity.localKey))
            #expect(try await HTTPScrape.get(port: metricsPort, path: "/health").status == 404)
            return metricsPort
        }
        // The listener is gone with the daemon: nothing answers on its port, or (tests run in
        // parallel, and another test's server may be given the freed port) not this daemon.
        if let late = try? await HTTPScrape.get(port: metricsPort, path: "/metrics") {
            #expect(HTTPScrape.sample(#"youll_route_resolutions_total{outcome="proceed"}"#, in: late.body) != 1)
        }
    }

    /// The first bridge/health message, published after the connection's retained topics
    /// without waiting for the first minute, describes an idle, connected daemon.
    static func expectFirstHealth(_ client: BridgeClient) async throws {
        let healthStream = try await client.subscribe(["youll/bridge/health"])

        var first: JSONValue?
        for await message in healthStream {
            first = message.json
            break
        }
        let health = try #require(first)
        #expect(health["session"] == .null)
        #expect((health["memory_rss_bytes"]?.int64Value ?? 0) > 1_000_000)
        #expect((health["mqtt"]?["messages_out"]?.int64Value ?? 0) > 0)
        #expect(health["reminders_due"] == .integer(0))
    }

    /// The exposition after one device was paired, set once and one deep link resolved.
    static func expectCountersAfterDriving(_ body: String) {
        #expect(HTTPScrape.sample("youll_commands_sent_total", in: body) == 1)
        #expect(HTTPScrape.sample("youll_commands_confirmed_total", in: body) == 1)
        #expect(HTTPScrape.sample("youll_commands_timed_out_total", in: body) == 0)
        #expect(HTTPScrape.sample("youll_command_latency_seconds_count", in: body) == 1)
        #expect(HTTPScrape.sample(#"youll_devices{transport="mqtt",availability="online"}"#, in: body) == 1)
        #expect(HTTPScrape.sample(#"youll_route_resolutions_total{outcome="proceed"}"#, in: body) == 1)
        let messagesIn =
            HTTPScrape.sample(#"youll_mqtt_messages_total{connection="bridge",direction="in"}"#, in: body)
            ?? 0
        #expect(messagesIn >= 3)
        // The device bus carried the pairing query, the command and the lamp's reports.
        let frames = (
            HTTPScrape.sample(#"youll_mqtt_messages_total{connection="devices",direction="out"}"#, in: body)
                ?? 0,
            HTTPScrape.sample(#"youll_mqtt_messages_total{connection="devices",direction="in"}"#, in: body)
                ?? 0
        )
        #expect(frames.0 >= 2 && frames.1 >= 2, "device frames out/in: \(frames)")
        #expect(HTTPScrape.sample(#"youll_broker_reconnects_total{connection="devices"}"#, in: body) == 0)
        #expect(body.contains("# TYPE youll_session_cue_lateness_seconds histogram"))
        #expect(HTTPScrape.sample(#"youll_ble_failures_total{reason="wrong_key"}"#, in: body) == 0)
    }
}
