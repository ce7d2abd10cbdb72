import AsyncHTTPClient
import Foundation
import Gateway
import NIOCore
import TuyaCore

/// The demo's view from outside: what Home Assistant finds under its discovery prefix
/// (one retained config per device, with the gateway as a device of its own), and what
/// Prometheus scrapes from `GET /metrics`.
enum DemoObservabilityStep {
    /// The series worth showing after the demo's commands; the rest are scraped too.
    static let shown = [
        "youll_devices{", "youll_commands_sent_total", "youll_commands_confirmed_total",
        "youll_command_latency_seconds_count", "youll_command_latency_seconds_sum", "youll_ble_connections ",
        "youll_mqtt_messages_total", "youll_session_cue_lateness_seconds_count",
    ]

    static func run(_ client: BridgeClient, discoveryPrefix: String, metricsPort: Int?) async throws {
        let configs = try await client.retained(matching: ["\(discoveryPrefix)/device/+/config"], timeout: .seconds(10))
        for message in configs {
            guard let object = message.json?.objectValue else { continue }
            let name = object["device"]?.objectValue?["name"]?.stringValue ?? "?"
            var platforms: [String: Int] = [:]
            for component in object["components"]?.objectValue?.values ?? [:].values {
                platforms[component.objectValue?["platform"]?.stringValue ?? "?", default: 0] += 1
            }
            let summary = platforms.sorted { $0.key < $1.key }.map { $0.value == 1 ? $0.key : "\($0.value) \($0.key)" }
            print("  \(message.topic): \(name): \(summary.joined(separator: ", "))")
        }
        guard let port = metricsPort else {
            print("  metrics: not served (see the log)")
            return
        }
        let url = "http://127.0.0.1:\(port)/metrics"
        let text = try await get(url)
        // Shown in the order of `shown`; zero-valued device counts are left out.
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let lines = shown.flatMap { prefix in
            samples.filter { $0.hasPrefix(prefix) && !($0.hasPrefix("youll_devices{") && $0.hasSuffix(" 0.0")) }
                .sorted()
        }
        print("  GET \(url): \(text.split(separator: "\n").count) lines; among them:")
        for line in lines { print("    \(line)") }
    }

    /// One GET, as a scraper would do it; the body as text. Through AsyncHTTPClient (as the
    /// webhooks are), not URLSession: FoundationNetworking would pull libcurl into the binary.
    static func get(_ address: String) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: address), timeout: .seconds(10))
        guard response.status == .ok else { throw CLIError("GET \(address) answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: 16 << 20)
        return String(buffer: body)
    }
}
