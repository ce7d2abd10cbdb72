import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Storage
import Testing
import TuyaController
import TuyaCore
import YoullTestSupport

/// Timer sessions through the whole daemon on the real clock: a real mosquitto on a free
/// port, simulated MQTT lights and diffusers (Tuya's device protocol), a real SQLite
/// state directory, and the bridge API through the real `BridgeClient`.
@Suite("Timer sessions in the daemon", .serialized, .timeLimit(.minutes(3)))
struct DaemonSessionTests {
    static let timeout = Duration.seconds(20)

    /// A broker with one simulated light and one diffuser on it.
    static func fleet(on broker: LocalBroker) async throws -> SimulatorFleet {
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 1, seed: 606), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: timeout))
        return fleet
    }

    /// The daemon on `broker` with its state in `state`; with `metricsPort`, metrics are served
    /// on a free port, written there once listening.
    static func withDaemon<T>(
        _ broker: LocalBroker, state: URL, metricsPort: ListeningPort? = nil, _ body: (RunningDaemon) async throws -> T
    ) async throws -> T {
        try await withRunningDaemon(
            broker: broker, state: state, hooks: .init(metricsListening: { bound in metricsPort?.set(bound) }),
            configure: { $0.metrics.enabled = metricsPort != nil }, body)
    }

    /// Pairs the fleet's light and diffuser as `lamp` and `aroma`.
    static func pairLampAndAroma(_ daemon: RunningDaemon, _ fleet: SimulatorFleet) async throws {
        for (identity, name) in zip(fleet.identities, ["lamp", "aroma"]) {
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: name)
        }
    }

    /// Waits for `bridge/event` messages of `type` and returns the data of the first that
    /// `matches`.
    static func waitForEvent(
        _ events: AsyncStream<BridgeMessage>, _ type: String, seen: inout [[String: JSONValue]],
        matching: ([String: JSONValue]) -> Bool = { _ in true }
    ) async -> [String: JSONValue]? {
        for await message in events {
            guard let object = message.json?.objectValue, let data = object["data"]?.objectValue else { continue }
            seen.append(data.merging(["type": object["type"] ?? .null]) { old, _ in old })
            if object["type"]?.stringValue == type, matching(data) { return data }
        }
        return nil
    }

    static func lampState(
        _ client: BridgeClient, where condition: @escaping @Sendable ([String: JSONValue]) -> Bool
    ) async throws
        -> [String: JSONValue]?
    {
        try await deviceState(client, "lamp", where: condition)
    }

    static func deviceState(
        _ client: BridgeClient, _ name: String, where condition: @escaping @Sendable ([String: JSONValue]) -> Bool
    ) async throws
        -> [String: JSONValue]?
    {
        let stream = try await client.subscribe(["youll/\(name)"])
        let seconds = Double(timeout.components.seconds)
        let message = try? await stream.first(within: seconds, "youll/\(name) matching the condition") { message in
            message.json?.objectValue.map(condition) ?? false
        }
        return message?.json?.objectValue
    }

    /// Starts a focus session (warm-up 1 s, then a 4 s stage with a bell every 2 s) and
    /// checks it runs: a second start is refused, status and the retained bridge/session show it.
    static func startShortFocus(_ daemon: RunningDaemon) async throws {
        // Subscribed first: on a loaded machine the 5 s session may be over before a
        // subscription made after the checks below would see it running.
        let sessionStates = try await daemon.client.subscribe(["youll/bridge/session"])
        let started = try await daemon.client.request(
            "session/start",
            [
                "preset": .string("focus"), "warmup_seconds": .integer(1),
                "stages": .array([
                    .object(["name": .string("sit"), "minutes": .double(4.0 / 60), "interval": .double(2.0 / 60)])
                ]),
            ], timeout: Self.timeout)
        #expect(started.objectValue?["preset"]?.stringValue == "focus")
        #expect(started.objectValue?["state"]?.stringValue == "running")

        // A second session is refused while this one runs.
        await #expect(throws: (any Error).self) {
            _ = try await daemon.client.request("session/start", ["minutes": .integer(5)], timeout: Self.timeout)
        }
        let status = try await daemon.client.request("session/status", timeout: Self.timeout).objectValue
        #expect(status?["state"]?.stringValue == "running")
        #expect((status?["remaining_seconds"].flatMap { if case .double(let d) = $0 { d } else { nil } } ?? 0) > 0)
        let shown = try? await sessionStates.first(within: Double(timeout.components.seconds), "bridge/session running")
        {
            let state = $0.json?.objectValue
            return state?["preset"]?.stringValue == "focus" && state?["state"]?.stringValue == "running"
        }
        #expect(shown != nil, "bridge/session shows the session")
    }

    @Test(
        "a short focus session runs on the real clock: status while it runs, cues on the bridge, the lamp restored at the end, the record completed"
    )
    func shortSession() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let metricsPort = ListeningPort()
        let broker = try await LocalBroker.started()
        defer { broker.stop() }
        let fleet = try await Self.fleet(on: broker)
        defer { fleet.stop() }
        let firedCues = try await Self.withDaemon(broker, state: state, metricsPort: metricsPort) { daemon in
            try await Self.pairLampAndAroma(daemon, fleet)
            _ = try await daemon.client.set(
                device: "lamp",
                payload: ["state": .string("ON"), "brightness": .integer(30), "color_temp": .integer(3000)],
                timeout: Self.timeout)
            let events = try await daemon.client.subscribe(["youll/bridge/event"])

            try await Self.startShortFocus(daemon)

            var seen: [[String: JSONValue]] = []
            let ended = await Self.waitForEvent(events, "session_ended", seen: &seen)
            #expect(ended?["state"]?.stringValue == "completed")
            let cues = seen.filter { $0["type"]?.stringValue == "session_cue" }
            #expect(cues.contains { $0["kind"]?.stringValue == "bell:0:1" })
            #expect(cues.contains { $0["kind"]?.stringValue == "restore" })
            let indices = cues.compactMap { $0["index"]?.int64Value }
            #expect(Set(indices).count == indices.count, "no cue fired twice")
            // Every fired cue reports how late it was; how late is real-time accuracy, which
            // `scripts/bench` measures (SessionBenchmarks), not this test on a loaded machine.
            let lateness = cues.compactMap { $0["lateness_ms"]?.int64Value }
            #expect(lateness.count == cues.count && lateness.allSatisfy { $0 >= 0 }, "\(cues)")
            // Prometheus has every fired cue's lateness, and no session running any more.
            let scrape = try await HTTPScrape.get(port: try #require(metricsPort.port), path: "/metrics")
            #expect(
                HTTPScrape.sample("youll_session_cue_lateness_seconds_count", in: scrape.body) == Double(cues.count))
            #expect(HTTPScrape.sample("youll_session_active", in: scrape.body) == 0)

            // Focus restores: the lamp is back at the brightness and temperature it had.
            let lamp = try await Self.lampState(daemon.client) {
                $0["brightness"]?.int64Value == 30 && $0["color_temp"]?.int64Value == 3000
            }
            #expect(lamp != nil, "the lamp was restored")
            let idle = try await daemon.client.request("session/status", timeout: Self.timeout).objectValue
            #expect(idle?["state"]?.stringValue == "idle")
            let history = try await daemon.client.request("session/history", timeout: Self.timeout).objectValue
            #expect(history?["completed_sessions"]?.int64Value == 1)
            #expect(history?["badges"] == .array([.string("first_session")]))
            // The start in UTC and in the timer's zone, one instant.
            let session = try #require(history?["sessions"]?.arrayValue?.first?.objectValue)
            let utc = try #require(session["started_at"]?.stringValue)
            let local = try #require(session["started_local"]?.stringValue)
            #expect(try Date.ISO8601FormatStyle().parse(utc) == Date.ISO8601FormatStyle().parse(local))
            return indices.count
        }

        let database = try GatewayDatabase.open(directory: state)
        let stored = try await database.sessionHistory(excluding: [], limit: nil)
        #expect(stored.map(\.state) == ["completed"])
        let log = try await database.cues(ofSession: try #require(stored.first).id)
        #expect(log.count == firedCues)
        #expect(log.allSatisfy { $0.outcome == "confirmed" || $0.outcome == "marked" })
    }

    @Test("an immediate stop leaves the calm preset's end state: sunrise brightness on the lamp, the diffuser off")
    func stopAppliesEndState() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let broker = try await LocalBroker.started()
        defer { broker.stop() }
        let fleet = try await Self.fleet(on: broker)
        defer { fleet.stop() }
        try await Self.withDaemon(broker, state: state) { daemon in
            try await Self.pairLampAndAroma(daemon, fleet)
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            _ = try await daemon.client.request(
                "session/start", ["preset": .string("calm"), "minutes": .integer(10), "interval_minutes": .integer(5)],
                timeout: Self.timeout)
            var seen: [[String: JSONValue]] = []
            _ = await Self.waitForEvent(events, "session_cue", seen: &seen) { $0["kind"]?.stringValue == "start" }
            // The start scene reached the diffuser: it is misting before the stop.
            let misting = try await Self.deviceState(daemon.client, "aroma") { $0["mist"]?.stringValue == "ON" }
            #expect(misting != nil)
            let stopped = try await daemon.client.request(
                "session/stop", ["immediately": .bool(true)], timeout: Self.timeout)
            #expect(stopped.objectValue?["state"]?.stringValue == "stopped")
            let ended = await Self.waitForEvent(events, "session_ended", seen: &seen)
            #expect(ended?["state"]?.stringValue == "stopped")
            #expect(!seen.contains { $0["kind"]?.stringValue?.hasPrefix("bell") == true })
            let lamp = try await Self.lampState(daemon.client) {
                $0["brightness"]?.int64Value == 80 && $0["color_temp"]?.int64Value == 4000
            }
            #expect(lamp != nil, "the lamp shows the sunrise's end")
            let aroma = try await Self.deviceState(daemon.client, "aroma") {
                $0["state"]?.stringValue == "OFF" || $0["mist"]?.stringValue == "OFF"
            }
            #expect(aroma != nil, "the diffuser faded out")
        }
        let database = try GatewayDatabase.open(directory: state)
        #expect(try await database.sessionHistory(excluding: [], limit: nil).map(\.state) == ["stopped"])
    }

    @Test("a daemon stopped mid-session resumes it at the next start without repeating a cue")
    func restartResumes() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let broker = try await LocalBroker.started()
        defer { broker.stop() }
        let fleet = try await Self.fleet(on: broker)
        defer { fleet.stop() }
        var seen: [[String: JSONValue]] = []
        try await Self.withDaemon(broker, state: state) { first in
            try await Self.pairLampAndAroma(first, fleet)
            let firstEvents = try await first.client.subscribe(["youll/bridge/event"])
            _ = try await first.client.request(
                "session/start",
                [
                    "preset": .string("focus"),
                    "stages": .array([
                        .object(["name": .string("sit"), "minutes": .double(8.0 / 60), "interval": .double(2.0 / 60)])
                    ]),
                ], timeout: Self.timeout)
            let bell = await Self.waitForEvent(firstEvents, "session_cue", seen: &seen) {
                $0["kind"]?.stringValue == "bell:0:1"
            }
            #expect(bell != nil)
        }

        // Listening before the second daemon starts: it may resume the session (and say so,
        // live) before a client of its own could subscribe.
        let watcher = try BridgeClient(configuration: daemonConfiguration(state: state, brokerPort: broker.port))
        try await watcher.connect(timeout: Self.timeout)
        let secondEvents = try await watcher.subscribe(["youll/bridge/event"])
        try await Self.withDaemon(broker, state: state) { _ in
            let ended = await Self.waitForEvent(secondEvents, "session_ended", seen: &seen)
            #expect(ended?["state"]?.stringValue == "completed")
            #expect(seen.contains { $0["type"]?.stringValue == "session_started" && $0["resumed"] == .bool(true) })
            let indices = seen.filter { $0["type"]?.stringValue == "session_cue" }.compactMap {
                $0["index"]?.int64Value
            }
            #expect(Set(indices).count == indices.count, "no cue fired twice: \(indices)")
            #expect(seen.contains { $0["kind"]?.stringValue == "bell:0:3" }, "bells after the restart rang")
        }
        await watcher.close()

        let database = try GatewayDatabase.open(directory: state)
        let stored = try #require(try await database.sessionHistory(excluding: [], limit: nil).first)
        #expect(stored.state == "completed")
        let log = try await database.cues(ofSession: stored.id)
        #expect(log.map(\.index) == Array(0..<log.count), "every planned cue is in the log once")
    }
}
