import Maintenance
import Metrics
import Prometheus
import TuyaCore

/// The gateway's Prometheus metrics: swift-metrics instruments made by a factory over one
/// registry that this instance owns. Nothing here touches the global `MetricsSystem`, so
/// every daemon (and every test) has its own counters.
///
/// Names follow Prometheus conventions: `_total` for counters, base units (seconds, bytes).
public final class GatewayMetrics: Sendable {
    /// What `GET /metrics` renders.
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    let commandsSent: Metrics.Counter
    let commandsConfirmed: Metrics.Counter
    let commandsTimedOut: Metrics.Counter
    let commandsFailed: Metrics.Counter
    /// From `/set` to the device's confirming report.
    let commandLatency: Metrics.Timer
    let brokerReconnects: Metrics.Counter
    let messagesIn: Metrics.Counter
    let messagesOut: Metrics.Counter
    let routeResolutions: [String: Metrics.Counter]

    static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
    /// `deeplink/resolve` outcomes: resolved, waiting on a precondition, or refused.
    static let routeOutcomes = ["proceed", "gated", "error"]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["youll_command_latency_seconds"] = Self.latencyBuckets
        self.factory = factory
        func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Metrics.Counter {
            Metrics.Counter(label: label, dimensions: dimensions, factory: factory)
        }
        commandsSent = counter("youll_commands_sent_total")
        commandsConfirmed = counter("youll_commands_confirmed_total")
        commandsTimedOut = counter("youll_commands_timed_out_total")
        commandsFailed = counter("youll_commands_failed_total")
        commandLatency = Metrics.Timer(label: "youll_command_latency_seconds", dimensions: [], factory: factory)
        brokerReconnects = counter("youll_broker_reconnects_total")
        messagesIn = counter("youll_mqtt_messages_total", [("direction", "in")])
        messagesOut = counter("youll_mqtt_messages_total", [("direction", "out")])
        routeResolutions = Dictionary(
            uniqueKeysWithValues: Self.routeOutcomes.map {
                ($0, counter("youll_route_resolutions_total", [("outcome", $0)]))
            })
        record(
            GatewayHealth(
                uptime: .zero, residentMemory: nil, messagesIn: 0, messagesOut: 0, devices: GatewayHealth.count([]),
                bleConnected: 0, bleWaiting: 0, bleLimit: 0, session: nil, reminders: [:]))
    }

    /// Sets the gauges from a health snapshot (devices, BLE links, reminders, uptime, memory).
    public func record(_ health: GatewayHealth) {
        for (transport, counts) in health.devices {
            for (availability, count) in counts {
                gauge("youll_devices", [("transport", transport.rawValue), ("availability", availability.rawValue)])
                    .record(count)
            }
        }
        gauge("youll_ble_connections").record(health.bleConnected)
        gauge("youll_ble_connections_waiting").record(health.bleWaiting)
        gauge("youll_ble_connection_limit").record(health.bleLimit)
        for status in ReminderStatus.allCases {
            gauge("youll_reminders", [("state", status.rawValue)]).record(health.reminders?[status] ?? 0)
        }
        gauge("youll_uptime_seconds").record(health.uptime.components.seconds)
        if let memory = health.residentMemory { gauge("youll_process_resident_memory_bytes").record(memory) }
        gauge("youll_session_active").record(health.session == nil ? 0 : 1)
    }

    /// A `/set` command's outcome: confirmed by the device (with its latency), not confirmed in time, or failed.
    func recordCommand(_ outcome: CommandOutcome, latency: Duration) {
        switch outcome {
        case .confirmed:
            commandsConfirmed.increment()
            let (seconds, attoseconds) = latency.components
            commandLatency.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        case .timedOut: commandsTimedOut.increment()
        case .failed: commandsFailed.increment()
        }
    }

    enum CommandOutcome {
        case confirmed, timedOut, failed
    }

    func recordRouteResolution(_ outcome: String) {
        (routeResolutions[outcome] ?? routeResolutions["error"])?.increment()
    }

    /// The text exposition format, as `GET /metrics` serves it.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

    private func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> Metrics.Gauge {
        Metrics.Gauge(label: label, dimensions: dimensions, factory: factory)
    }
}
