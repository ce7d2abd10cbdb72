import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Storage
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Stock Tuya Wi-Fi devices over the LAN protocol in the daemon's timer and maintenance,
/// exactly as MQTT devices are: a real mosquitto on a free port, simulated LAN devices
/// (3.4 and 3.5, each on TCP 6668 of its own 127.x.y.z address), a real SQLite state
/// directory, and the bridge API through the real `BridgeClient`. The daemon runs sessions
/// on the real clock (it takes no injected one), so the session here lasts a few seconds.
@Suite("A LAN diffuser in timer sessions and maintenance", .serialized, .timeLimit(.minutes(3)))
struct DaemonLANDiffuserTests {
    static let timeout = Duration.seconds(20)

    /// 127.x.y.1 with x in 20–29: outside the ranges the other LAN suites use.
    static func baseAddress() -> String { "127.\(Int.random(in: 20...29)).\(Int.random(in: 1...250)).1" }

    /// A LAN bulb (3.4) and a LAN diffuser (3.5), no broadcasts: they are paired by IP.
    static func fleet(lights: Int, behaviour: DeviceBehaviour = DeviceBehaviour()) async throws -> LANSimulatorFleet {
        let options = LANSimulatorOptions(
            lights: lights, diffusers: 1, versions: lights > 0 ? [.v3_4, .v3_5] : [.v3_5],
            baseAddress: baseAddress(), discoveryPort: try LocalBroker.freeLoopbackPort(),
            plaintextDiscoveryPort: try LocalBroker.freeLoopbackPort(), broadcastInterval: nil,
            seed: UInt64.random(in: 1...1_000_000), behaviour: behaviour)
        let fleet = try LANSimulatorFleet(options: options, library: Repository.shippedProfiles)
        try await fleet.start()
        return fleet
    }

    /// Pairs `identity` over the LAN as `name`, through `device/add`.
    static func pairLAN(_ daemon: RunningDaemon, _ identity: LANDeviceIdentity, as name: String) async throws {
        let device = try await daemon.client.request(
            "device/add",
            [
                "id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string(name),
                "transport": .string("lan"), "ip": .string(identity.ip), "version": .string(identity.version.rawValue),
            ], timeout: timeout)
        #expect(device["friendly_name"] == .string(name))
    }

    /// Waits (on the retained availability topic) until every device in `names` is online:
    /// pairing returns when the link has started, and its first connection and session
    /// (the 3.4/3.5 handshake) may still be under way. (The pairing probe's connection is
    /// gone on the device by then: LANPairingHandOverTests.)
    static func waitOnline(_ daemon: RunningDaemon, _ names: [String]) async throws {
        for name in names {
            let online = try await DaemonSessionTests.deviceState(daemon.client, "\(name)/availability") {
                $0["state"]?.stringValue == "online"
            }
            #expect(online != nil, "\(name) is online")
        }
    }

    /// The diffuser's DP for `capability` in the shipped profile.
    static func dataPoint(_ capability: Capability, of identity: LANDeviceIdentity) throws -> DataPointID {
        try #require(identity.identity.profile.capabilities[capability]?.dataPoint)
    }

    static func stateDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("youll-lan-aroma-\(UUID().uuidString)")
    }

    /// Runs `body` with the daemon (its state in `state`), stopping `fleet` afterwards also
    /// when it throws.
    static func withDaemon<T>(
        fleet: LANSimulatorFleet, state: URL = stateDirectory(), _ body: (RunningDaemon) async throws -> T
    ) async throws -> T {
        let broker = try LocalBroker()
        defer { broker.stop() }
        do {
            let value = try await withRunningDaemon(
                broker: broker, state: state, configure: { $0.lan.discoveryPorts = [] }, body)
            await fleet.stop()
            return value
        } catch {
            await fleet.stop()
            throw error
        }
    }

    @Test(
        "a focus session starts a LAN diffuser, rings the LAN lamp's bells, and puts the diffuser back at the end, every cue confirmed by the devices"
    )
    func sessionDrivesLANDiffuser() async throws {
        let fleet = try await Self.fleet(lights: 1)
        let lamp = try #require(fleet.identities.first)
        let aroma = try #require(fleet.identities.last)
        #expect(aroma.version == .v3_5 && lamp.version == .v3_4)
        let mist = try Self.dataPoint(.mist, of: aroma)
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        try await Self.withDaemon(fleet: fleet, state: state) { daemon in
            try await Self.pairLAN(daemon, lamp, as: "lamp")
            try await Self.pairLAN(daemon, aroma, as: "aroma")
            try await Self.waitOnline(daemon, ["lamp", "aroma"])
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            let started = try await daemon.client.request(
                "session/start",
                [
                    "preset": .string("focus"), "warmup_seconds": .integer(0),
                    "stages": .array([
                        .object(["name": .string("sit"), "minutes": .double(5.0 / 60), "interval": .double(2.0 / 60)])
                    ]),
                ], timeout: Self.timeout)
            #expect(started.objectValue?["state"]?.stringValue == "running")

            // The start scene reaches the diffuser over its TCP connection: it mists.
            var seen: [[String: JSONValue]] = []
            let start = await DaemonSessionTests.waitForEvent(events, "session_cue", seen: &seen) {
                $0["kind"]?.stringValue == "start" && $0["device"]?.stringValue == "aroma"
            }
            #expect(start?["outcome"]?.stringValue == "sent", "\(String(describing: start))")
            let misting = try await DaemonSessionTests.deviceState(daemon.client, "aroma") {
                $0["mist"]?.stringValue == "ON"
            }
            #expect(misting != nil, "the diffuser reported its mist on: the start cue is confirmed")
            #expect(await fleet.state(of: aroma.devId)?[mist] == .bool(true), "the LAN diffuser mists")

            let ended = await DaemonSessionTests.waitForEvent(events, "session_ended", seen: &seen)
            #expect(ended?["state"]?.stringValue == "completed")
            let cues = seen.filter { $0["type"]?.stringValue == "session_cue" }
            #expect(
                cues.contains { $0["kind"]?.stringValue == "bell:0:1" && $0["device"]?.stringValue == "lamp" },
                "the interval bell dips the LAN lamp: \(cues)")
            #expect(
                cues.contains { $0["kind"]?.stringValue == "restore" && $0["device"]?.stringValue == "aroma" },
                "the end cue goes to the diffuser: \(cues)")
            let skipped = cues.filter { $0["outcome"]?.stringValue?.hasPrefix("skipped") == true }
            #expect(skipped.isEmpty, "no cue was skipped: \(skipped)")

            // Focus restores: the diffuser was off before the session, and reports itself off
            // again; the gateway's state for it comes from that report.
            let restored = try await DaemonSessionTests.deviceState(daemon.client, "aroma") {
                $0["mist"]?.stringValue == "OFF"
            }
            #expect(restored != nil, "the diffuser reported its mist off: the end cue is confirmed")
            #expect(await fleet.state(of: aroma.devId)?[mist] == .bool(false), "the LAN diffuser stopped misting")
            let history = try await daemon.client.request("session/history", timeout: Self.timeout).objectValue
            #expect(history?["completed_sessions"]?.int64Value == 1)
        }

        // The cue log: the start scene and the interval bell were confirmed by the devices
        // they went to. (The end cues settle as the session ends; their confirmation is the
        // diffuser's own report above, which the log may not have caught before the stop.)
        let database = try GatewayDatabase.open(directory: state)
        defer { try? database.close() }
        let stored = try #require(try await database.sessionHistory(excluding: [], limit: nil).first)
        #expect(stored.state == "completed")
        let log = try await database.cues(ofSession: stored.id)
        let confirmed = Set(log.filter { $0.outcome == "confirmed" }.map { "\($0.kind) \($0.device?.rawValue ?? "-")" })
        #expect(confirmed.contains("start \(aroma.devId)"), "\(log)")
        #expect(confirmed.contains("start \(lamp.devId)"), "\(log)")
        #expect(confirmed.contains("bell:0:1 \(lamp.devId)"), "\(log)")
        #expect(!log.contains { $0.outcome.hasPrefix("skipped") }, "\(log)")
    }

    @Test(
        "a LAN diffuser running dry raises a refill reminder with its deep link, which resolves to the due reminder; refilled and done, it is ok"
    )
    func lanDiffuserRunsDry() async throws {
        let fleet = try await Self.fleet(lights: 0, behaviour: DeviceBehaviour(tankDuration: .milliseconds(300)))
        let aroma = try #require(fleet.identities.first)
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        try await Self.withDaemon(fleet: fleet, state: state) { daemon in
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            try await Self.pairLAN(daemon, aroma, as: "aroma")
            try await Self.waitOnline(daemon, ["aroma"])
            _ = try await daemon.client.set(
                device: "aroma", payload: ["state": .string("ON"), "mist": .string("ON")], timeout: Self.timeout)

            // 300 ms of mist empty the simulated tank: the device raises its water-shortage
            // fault in a STATUS push on its TCP connection, and the reminder comes due.
            let link = "youll://tuya/maintenance?type=refill&device=\(aroma.devId)"
            var alert = try #require(await DaemonMaintenanceTests.Events.nextAlert(events))
            while alert["type"]?.stringValue != "refill" {
                alert = try #require(await DaemonMaintenanceTests.Events.nextAlert(events))
            }
            #expect(alert["deeplink"]?.stringValue == link)
            #expect(alert["state"]?.stringValue == "due")
            #expect(alert["friendly_name"]?.stringValue == "aroma")
            let refill = try await DaemonMaintenanceTests.Events.retainedReminder(
                daemon.client, device: "aroma", type: "refill", timeout: Self.timeout)
            #expect(refill?["state"]?.stringValue == "due")
            #expect(refill?["deeplink"]?.stringValue == link)

            let resolved = try await daemon.client.request(
                "deeplink/resolve", ["url": .string(link)], timeout: Self.timeout)
            #expect(resolved.objectValue?["resolution"]?.stringValue == "proceed")
            #expect(resolved.objectValue?["reminder"]?.objectValue?["state"]?.stringValue == "due")

            // Refilled (the fault clears on the device) and marked done: the reminder is ok.
            await fleet.refill(aroma.devId)
            let done = try await daemon.client.request(
                "maintenance/done", ["device": .string("aroma"), "type": .string("refill")], timeout: Self.timeout)
            #expect(done.objectValue?["reminder"]?.objectValue?["state"]?.stringValue == "ok")
        }
    }
}
