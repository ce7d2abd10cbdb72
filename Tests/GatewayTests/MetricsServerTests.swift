import Foundation
import Gateway
import Logging
import Maintenance
import Testing
import TuyaController
import TuyaCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The metrics endpoint on its own: the real NIO server on a free loopback port, scraped with
/// URLSession and with raw sockets for hostile requests.
@Suite("Prometheus metrics endpoint", .timeLimit(.minutes(1)))
struct MetricsServerTests {
    static func start(_ metrics: GatewayMetrics) async throws -> MetricsServer {
        try await MetricsServer.start(host: "127.0.0.1", port: 0, logger: Logger(label: "metrics-test")) {
            metrics.exposition()
        }
    }

    @Test("GET /metrics answers the text format with the gateway's metric names and types")
    func scrape() async throws {
        let metrics = GatewayMetrics()
        let server = try await Self.start(metrics)
        #expect(server.port > 0)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/metrics"))
        let (data, response) = try await URLSession.shared.data(from: url)
        await server.stop()
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect((http.value(forHTTPHeaderField: "Content-Type") ?? "").hasPrefix("text/plain; version=0.0.4"))
        let body = String(decoding: data, as: UTF8.self)
        for (name, type) in [
            ("youll_commands_sent_total", "counter"), ("youll_commands_confirmed_total", "counter"),
            ("youll_commands_timed_out_total", "counter"), ("youll_command_latency_seconds", "histogram"),
            ("youll_broker_reconnects_total", "counter"), ("youll_mqtt_messages_total", "counter"),
            ("youll_route_resolutions_total", "counter"), ("youll_devices", "gauge"),
            ("youll_ble_connections", "gauge"),
            ("youll_reminders", "gauge"),
        ] {
            #expect(body.contains("# TYPE \(name) \(type)\n"), "no TYPE line for \(name)")
        }
        #expect(HTTPScrape.sample(#"youll_devices{transport="mqtt",availability="online"}"#, in: body) == 0)
        #expect(HTTPScrape.sample(#"youll_reminders{state="due"}"#, in: body) == 0)
    }

    @Test("an unknown path is 404 and another method is 405")
    func wrongPathAndMethod() async throws {
        let server = try await Self.start(GatewayMetrics())
        #expect(try await HTTPScrape.get(port: server.port, path: "/").status == 404)
        #expect(try await HTTPScrape.get(port: server.port, path: "/metrics/../admin").status == 404)
        let post = try await HTTPScrape.exchange(
            port: server.port, request: Array("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi".utf8))
        #expect(post.status == 405)
        #expect(post.head.contains("Allow: GET"))
        #expect(try await HTTPScrape.get(port: server.port, path: "/metrics?x=1").status == 200)
        await server.stop()
    }

    @Test("a garbage request line is answered 400, oversized headers 431, and the next scrape still works")
    func hostileRequests() async throws {
        let server = try await Self.start(GatewayMetrics())
        let garbage = try await HTTPScrape.exchange(
            port: server.port, request: Array("\u{1}\u{2}NOT HTTP AT ALL\r\n\r\n".utf8))
        #expect(garbage.status == 400)
        let header = "X-Filler: " + String(repeating: "a", count: 40_000) + "\r\n"
        let huge = try await HTTPScrape.exchange(
            port: server.port, request: Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\(header)\r\n".utf8))
        #expect(huge.status == 431)
        // Half a request, then the client goes away.
        try await HTTPScrape.abandon(port: server.port, request: Array("GET /met".utf8))
        let after = try await HTTPScrape.get(port: server.port, path: "/metrics")
        #expect(after.status == 200)
        #expect(after.body.contains("# TYPE youll_commands_sent_total counter"))
        await server.stop()
    }

    @Test(
        "the health payload counts devices by availability and transport, reminders due, and says when no session runs")
    func healthPayload() {
        let devices = GatewayHealth.count([(.mqtt, .online), (.mqtt, .online), (.mqtt, nil), (.ble, .offline)])
        let health = GatewayHealth(
            uptime: .seconds(125), residentMemory: 12_345_678, messagesIn: 7, messagesOut: 42, devices: devices,
            bleConnected: 1, bleWaiting: 2, bleLimit: 3, session: nil, reminders: [.ok: 4, .due: 1, .overdue: 2])
        let json = health.json
        #expect(json["uptime_seconds"] == .integer(125))
        #expect(json["memory_rss_bytes"] == .integer(12_345_678))
        #expect(json["mqtt"]?["messages_in"] == .integer(7))
        #expect(json["mqtt"]?["messages_out"] == .integer(42))
        #expect(json["devices"]?["online"] == .integer(2))
        #expect(json["devices"]?["unknown"] == .integer(1))
        #expect(json["devices"]?["offline"] == .integer(1))
        #expect(json["devices_by_transport"]?["mqtt"] == .integer(3))
        #expect(json["ble"]?["connected"] == .integer(1))
        #expect(json["session"] == .null)
        #expect(json["reminders_due"] == .integer(3))
        #expect(json["reminders"]?["due_soon"] == .integer(0))

        // With maintenance switched off there is no reminder count, rather than a false zero.
        var off = health
        off.reminders = nil
        #expect(off.json["reminders_due"] == .null)
        #expect(off.json["reminders"] == nil)
    }

    @Test("the gauges follow the health snapshot")
    func gaugesFollowHealth() {
        let metrics = GatewayMetrics()
        let health = GatewayHealth(
            uptime: .seconds(5), residentMemory: 1024, messagesIn: 0, messagesOut: 0,
            devices: GatewayHealth.count([(.ble, .online), (.mqtt, .offline)]), bleConnected: 1, bleWaiting: 0,
            bleLimit: 3, session: nil, reminders: [.overdue: 2])
        metrics.record(health)
        let body = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(HTTPScrape.sample(#"youll_devices{transport="ble",availability="online"}"#, in: body) == 1)
        #expect(HTTPScrape.sample(#"youll_devices{transport="mqtt",availability="offline"}"#, in: body) == 1)
        #expect(HTTPScrape.sample(#"youll_devices{transport="mqtt",availability="online"}"#, in: body) == 0)
        #expect(HTTPScrape.sample("youll_ble_connections", in: body) == 1)
        #expect(HTTPScrape.sample(#"youll_reminders{state="overdue"}"#, in: body) == 2)
        #expect(HTTPScrape.sample("youll_process_resident_memory_bytes", in: body) == 1024)
    }

    @Test("refused device frames are counted by reason, and a repeated snapshot adds nothing")
    func rejectedFramesByReason() {
        let metrics = GatewayMetrics()
        var health = GatewayHealth(
            uptime: .seconds(5), residentMemory: nil, messagesIn: 0, messagesOut: 0, devices: GatewayHealth.count([]),
            bleConnected: 0, bleWaiting: 0, bleLimit: 0, session: nil, reminders: nil)
        health.deviceBus = DeviceBusStatistics.Snapshot(
            connections: 1, rejectedFrames: ["time_outside_window": 3, "older_than_command": 1])
        metrics.record(health)
        metrics.record(health)
        let body = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(HTTPScrape.sample(#"youll_device_frames_rejected_total{reason="time_outside_window"}"#, in: body) == 3)
        #expect(HTTPScrape.sample(#"youll_device_frames_rejected_total{reason="older_than_command"}"#, in: body) == 1)
        #expect(HTTPScrape.sample(#"youll_device_frames_rejected_total{reason="sequence_went_back"}"#, in: body) == 0)
    }
}
