import Maintenance
import Metrics
import Prometheus
import Synchronization
import TuyaController
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
    /// Writes an answer depended on that failed (a full disk, a read-only state directory).
    let databaseWritesFailed: Metrics.Counter
    let messagesIn: Metrics.Counter
    let messagesOut: Metrics.Counter
    /// The device bus's counters, moved on from its statistics at each `record`.
    let deviceBusReconnects: Metrics.Counter
    let deviceBusIn: Metrics.Counter
    let deviceBusOut: Metrics.Counter
    private let deviceBusCounted = Mutex(DeviceBusStatistics.Snapshot(connections: 1))
    /// Device frames refused as replayed or stale, by reason (`DeviceBusStatistics.rejectionReasons`).
    let rejectedFrames: [String: Metrics.Counter]
    let routeResolutions: [String: Metrics.Counter]
    /// BLE problems by reason, moved on from the radio's totals at each `record`.
    let bleFailures: [String: Metrics.Counter]
    private let bleFailuresCounted = Mutex<[String: Int]>([:])
    /// A session cue's actual time minus its planned time.
    let cueLateness: Metrics.Timer

    static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
    /// A cue is meant to fire within a few milliseconds; a second late is a bell out of step.
    static let latenessBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]
    /// `deeplink/resolve` outcomes: resolved, waiting on a precondition, or refused.
    static let routeOutcomes = ["proceed", "gated", "error"]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["youll_command_latency_seconds"] = Self.latencyBuckets
        factory.durationHistogramBuckets["youll_session_cue_lateness_seconds"] = Self.latenessBuckets
        self.factory = factory
        func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Metrics.Counter {
            Metrics.Counter(label: label, dimensions: dimensions, factory: factory)
        }
        commandsSent = counter("youll_commands_sent_total")
        commandsConfirmed = counter("youll_commands_confirmed_total")
        commandsTimedOut = counter("youll_commands_timed_out_total")
        commandsFailed = counter("youll_commands_failed_total")
        commandLatency = Metrics.Timer(label: "youll_command_latency_seconds", dimensions: [], factory: factory)
        cueLateness = Metrics.Timer(label: "youll_session_cue_lateness_seconds", dimensions: [], factory: factory)
        brokerReconnects = counter("youll_broker_reconnects_total", [("connection", "bridge")])
        databaseWritesFailed = counter("youll_database_writes_failed_total")
        messagesIn = counter("youll_mqtt_messages_total", [("connection", "bridge"), ("direction", "in")])
        messagesOut = counter("youll_mqtt_messages_total", [("connection", "bridge"), ("direction", "out")])
        deviceBusReconnects = counter("youll_broker_reconnects_total", [("connection", "devices")])
        deviceBusIn = counter("youll_mqtt_messages_total", [("connection", "devices"), ("direction", "in")])
        deviceBusOut = counter("youll_mqtt_messages_total", [("connection", "devices"), ("direction", "out")])
        rejectedFrames = Dictionary(
            uniqueKeysWithValues: DeviceBusStatistics.rejectionReasons.map {
                ($0, counter("youll_device_frames_rejected_total", [("reason", $0)]))
            })
        routeResolutions = Dictionary(
            uniqueKeysWithValues: Self.routeOutcomes.map {
                ($0, counter("youll_route_resolutions_total", [("outcome", $0)]))
            })
        bleFailures = Dictionary(
            uniqueKeysWithValues: BLESessionError.allReasons.map {
                ($0, counter("youll_ble_failures_total", [("reason", $0)]))
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
        if let bus = health.deviceBus {
            // Two records may race (a scrape and the health loop): only ever move forwards.
            recordDeviceBus(bus)
        }
        // Counters only go up: add what the radio counted since the last record.
        let increments = bleFailuresCounted.withLock { counted in
            var increments: [String: Int] = [:]
            for (reason, total) in health.bleFailures where total > counted[reason, default: 0] {
                increments[reason] = total - counted[reason, default: 0]
                counted[reason] = total
            }
            return increments
        }
        for (reason, increment) in increments {
            (bleFailures[reason]
                ?? Metrics.Counter(
                    label: "youll_ble_failures_total", dimensions: [("reason", reason)], factory: factory))
                .increment(by: increment)
        }
        for status in ReminderStatus.allCases {
            gauge("youll_reminders", [("state", status.rawValue)]).record(health.reminders?[status] ?? 0)
        }
        gauge("youll_uptime_seconds").record(health.uptime.components.seconds)
        if let memory = health.residentMemory { gauge("youll_process_resident_memory_bytes").record(memory) }
        gauge("youll_session_active").record(health.session == nil ? 0 : 1)
    }

    /// Moves the device bus's counters on to its latest totals. Two records may race (a
    /// scrape and the health loop): they only ever move forwards.
    private func recordDeviceBus(_ bus: DeviceBusStatistics.Snapshot) {
        let (inc, out, reconnects, rejected) = deviceBusCounted.withLock { counted in
            let increments = (
                max(0, bus.messagesIn - counted.messagesIn), max(0, bus.messagesOut - counted.messagesOut),
                max(0, bus.reconnects - counted.reconnects)
            )
            counted.messagesIn += increments.0
            counted.messagesOut += increments.1
            counted.connections += increments.2
            var rejected: [String: Int] = [:]
            for (reason, total) in bus.rejectedFrames where total > counted.rejectedFrames[reason, default: 0] {
                rejected[reason] = total - counted.rejectedFrames[reason, default: 0]
                counted.rejectedFrames[reason] = total
            }
            return (increments.0, increments.1, increments.2, rejected)
        }
        if inc > 0 { deviceBusIn.increment(by: inc) }
        if out > 0 { deviceBusOut.increment(by: out) }
        if reconnects > 0 { deviceBusReconnects.increment(by: reconnects) }
        for (reason, increment) in rejected {
            (rejectedFrames[reason]
                ?? Metrics.Counter(
                    label: "youll_device_frames_rejected_total", dimensions: [("reason", reason)], factory: factory))
                .increment(by: increment)
        }
    }

    /// A `/set` command's outcome: confirmed by the device (with its latency), not confirmed in time, or failed.
    func recordCommand(_ outcome: CommandOutcome, latency: Duration) {
        switch outcome {
        case .confirmed:
            commandsConfirmed.increment()
            commandLatency.recordNanoseconds(Self.nanoseconds(latency))
        case .timedOut: commandsTimedOut.increment()
        case .failed: commandsFailed.increment()
        }
    }

    /// A fired cue's lateness; a cue fired early (never expected) counts as on time.
    func recordCue(lateness: Duration) {
        cueLateness.recordNanoseconds(max(0, Self.nanoseconds(lateness)))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    enum CommandOutcome {
        case confirmed, timedOut, failed
    }

    func recordRouteResolution(_ outcome: String) {
        (routeResolutions[outcome] ?? routeResolutions["error"])?.increment()
    }

    /// A bridge request refused by its security checks (`unsigned`, `bad_signature`, `stale`,
    /// `replayed`, `clear_key`, …).
    func recordRefusedRequest(reason: String) {
        Metrics.Counter(
            label: "youll_bridge_requests_refused_total", dimensions: [("reason", reason)], factory: factory
        )
        .increment()
    }

    /// The broker closed the bridge's connection: another client took its session over (same
    /// client id), or the broker went away.
    func recordClosedByBroker() {
        Metrics.Counter(
            label: "youll_broker_session_takeovers_total", dimensions: [("connection", "bridge")], factory: factory
        ).increment()
    }

    /// The text exposition format, as `GET /metrics` serves it.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

    private func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> Metrics.Gauge {
        Metrics.Gauge(label: label, dimensions: dimensions, factory: factory)
    }
}
