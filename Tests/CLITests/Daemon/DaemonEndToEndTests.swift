import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// `youll-devices serve` end to end: the real binary, a real broker, simulated devices.
@Suite("youll-devices serve, end to end", .serialized)
struct DaemonEndToEndTests {
    /// Pairs the fleet's device `index` as `name` through `device/add`.
    @discardableResult
    private func pair(_ rig: DaemonRig, _ fleet: SimulatorFleet, index: Int = 0, name: String) async throws -> String {
        let identity = fleet.identities[index]
        let response = try await rig.request(
            "device/add",
            ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string(name)])
        #expect(response["status"]?.string == "ok", "\(response)")
        return identity.devId
    }

    private func set(_ rig: DaemonRig, _ name: String, _ json: String) async throws {
        try await rig.publish("youll/\(name)/set", Array(json.utf8))
    }

    @Test("pair through device/add, command through /set: the bulb changes and its state is published retained")
    func pairSetState() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 11)
        defer { fleet.stop() }
        let mark = await rig.observer.mark
        let devId = try await pair(rig, fleet, name: "desk")

        let paired = try await rig.observer.wait(for: "youll/bridge/event", after: mark) {
            $0.json?["type"]?.string == "device_paired"
        }
        #expect(paired.json?["data"]?["device"]?["friendly_name"]?.string == "desk")
        let devices = try await rig.observer.wait(for: "youll/bridge/devices", after: mark) {
            $0.json?.arrayValue?.count == 1
        }
        #expect(devices.json?.arrayValue?.first?["id"]?.string == devId)
        let capabilities = devices.json?.arrayValue?.first?["capabilities"]?.arrayValue ?? []
        #expect(capabilities.contains { $0["name"]?.string == "color_temp" && $0["min"] == .integer(2700) })
        _ = try await rig.observer.wait(for: "youll/desk/availability", after: mark) {
            $0.json?["state"]?.string == "online"
        }

        let setMark = await rig.observer.mark
        try await set(rig, "desk", #"{"state":"ON","brightness":40,"color_temp":2700}"#)
        let state = try await rig.observer.wait(for: "youll/desk", after: setMark) {
            $0.json?["brightness"] == .integer(40) && $0.json?["state"]?.string == "ON"
        }
        #expect(state.json?["color_temp"] == .integer(2700))
        // The simulated bulb itself switched on (DP 20) at 40 % (DP 22 runs 10–1000).
        let dps = try #require(await fleet.state(of: devId))
        #expect(dps[DataPointID(20)!] == .bool(true))
        #expect(dps[DataPointID(22)!] == .value(406))

        // A late subscriber gets the state retained, as Home Assistant would after its restart.
        let late = try await BridgeObserver(url: rig.broker.url, filter: "youll/desk")
        let retained = try await late.wait(for: "youll/desk") { $0.retain }
        #expect(retained.json?["brightness"] == .integer(40))
        await late.close()

        try await expectTransactionAnswers(rig)

        // Prometheus sees the same: one Wi-Fi device online, the confirmed commands counted
        // (the latency histogram with them), and no local key anywhere in the text.
        let metrics = try await rig.scrapeMetrics()
        #expect(DaemonRig.sample(metrics, "youll_devices", ["transport": "mqtt", "availability": "online"]) == 1)
        #expect((DaemonRig.sample(metrics, "youll_commands_confirmed_total") ?? 0) >= 2)
        #expect((DaemonRig.sample(metrics, "youll_command_latency_seconds_count") ?? 0) >= 2)
        #expect(metrics.contains("# TYPE youll_command_latency_seconds histogram"))
        #expect(!metrics.contains(fleet.identities[0].localKey))

        // SIGTERM: the bridge says offline before the process exits 0.
        let stopMark = await rig.observer.mark
        #expect(await rig.stopDaemon() == 0)
        let offline = try await rig.observer.wait(for: "youll/bridge/state", after: stopMark)
        #expect(offline.json?["state"]?.string == "offline")
        #expect(!rig.log.contains(fleet.identities[0].localKey), "the local key must never be logged")
        let everything = await rig.observer.messages.filter { !$0.topic.contains("/request/") }
        #expect(!everything.contains { $0.text.contains(fleet.identities[0].localKey) }, "nor published")
        await rig.shutdown()
    }

    /// With a transaction, /set on `desk` is answered with the confirmed state, or with the bad field.
    func expectTransactionAnswers(_ rig: DaemonRig) async throws {
        let answerMark = await rig.observer.mark
        try await set(rig, "desk", #"{"brightness":75,"transaction":"a1"}"#)
        let answer = try await rig.observer.wait(for: "youll/bridge/response/device/set", after: answerMark) {
            $0.json?["transaction"]?.string == "a1"
        }
        #expect(answer.json?["status"]?.string == "ok")
        #expect(answer.json?["data"]?["state"]?["brightness"] == .integer(75))
        try await set(rig, "desk", #"{"brightness":140,"transaction":"a2"}"#)
        let refused = try await rig.observer.wait(for: "youll/bridge/response/device/set", after: answerMark) {
            $0.json?["transaction"]?.string == "a2"
        }
        #expect(refused.json?["status"]?.string == "error")
        #expect(refused.json?["error"]?.string?.contains("brightness") == true)
    }

    @Test("a restart keeps paired devices and their confirmed state, even with the broker's retained copy gone")
    func restartKeepsState() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 12)
        defer { fleet.stop() }
        let devId = try await pair(rig, fleet, name: "hall")
        let mark = await rig.observer.mark
        try await set(rig, "hall", #"{"state":"ON","brightness":40}"#)
        _ = try await rig.observer.wait(for: "youll/hall", after: mark) { $0.json?["brightness"] == .integer(40) }
        #expect(await rig.stopDaemon() == 0)

        // Forget what the broker retained and take the bulb away: only the database knows now.
        for topic in ["youll/hall", "youll/hall/availability", "youll/bridge/devices"] {
            try await rig.observer.publish(topic, [], retain: true)
        }
        await fleet.goOffline(devId)
        let restartMark = await rig.observer.mark
        try await rig.startDaemon()
        let devices = try await rig.observer.wait(for: "youll/bridge/devices", after: restartMark) {
            $0.json?.arrayValue?.count == 1
        }
        #expect(devices.json?.arrayValue?.first?["friendly_name"]?.string == "hall")
        let state = try await rig.observer.wait(for: "youll/hall", after: restartMark) { !$0.payload.isEmpty }
        #expect(state.json?["brightness"] == .integer(40))
        #expect(state.json?["state"]?.string == "ON")

        // The documented order after a connection: state, info, devices, (availability once
        // known: this bulb has not been heard since the start, so none yet), values.
        let order = await rig.observer.messages[restartMark...].map(\.topic).filter {
            [
                "youll/bridge/state", "youll/bridge/info", "youll/bridge/devices", "youll/hall/availability",
                "youll/hall",
            ]
            .contains($0)
        }
        #expect(
            Array(order.prefix(4)) == ["youll/bridge/state", "youll/bridge/info", "youll/bridge/devices", "youll/hall"])
        await rig.shutdown()
    }

    @Test("a gateway restart never flaps a device's availability: the retained online stays until it is heard again")
    func restartDoesNotFlapAvailability() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        // The bulb answers slowly, as some Wi-Fi bulbs do: the gateway is up well before it.
        let fleet = try SimulatorFleet(
            options: .init(
                lights: 1, diffusers: 0, seed: 15, behaviour: DeviceBehaviour(reportDelay: .milliseconds(800))),
            library: rig.library, broker: SwarmConfiguration(brokerURL: rig.broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: .seconds(20)))
        defer { fleet.stop() }
        try await pair(rig, fleet, name: "den")
        _ = try await rig.observer.wait(for: "youll/den/availability") {
            $0.json?["state"]?.string == "online"
        }
        #expect(await rig.stopDaemon() == 0)

        let restartMark = await rig.observer.mark
        try await rig.startDaemon()
        _ = try await rig.observer.wait(for: "youll/den/availability", after: restartMark) {
            $0.json?["state"]?.string == "online"
        }
        let said = await rig.observer.messages[restartMark...].filter { $0.topic == "youll/den/availability" }
        #expect(said.map { $0.json?["state"]?.string } == ["online"], "\(said.map(\.text))")
        await rig.shutdown()
    }

    @Test(
        "kill -9 while a command is pending: the daemon restarts on its database, the confirmed state is intact, and the command still reaches the device"
    )
    func killNineMidCommand() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 13)
        defer { fleet.stop() }
        let devId = try await pair(rig, fleet, name: "lamp")
        let mark = await rig.observer.mark
        try await set(rig, "lamp", #"{"state":"ON","brightness":40}"#)
        _ = try await rig.observer.wait(for: "youll/lamp", after: mark) { $0.json?["brightness"] == .integer(40) }

        // The bulb stops answering; a command goes out and stays pending; the daemon is killed.
        await fleet.setMisbehaviour(.init(dropShare: 1), for: devId)
        let pendingMark = await rig.observer.mark
        try await set(rig, "lamp", #"{"brightness":70}"#)
        _ = try await rig.observer.wait(for: "smart/device/in/\(devId)", after: pendingMark)
        rig.killDaemon()

        try await rig.observer.publish("youll/lamp", [], retain: true)
        await fleet.setMisbehaviour(.init(), for: devId)
        let restartMark = await rig.observer.mark
        try await rig.startDaemon()
        let restored = try await rig.observer.wait(for: "youll/lamp", after: restartMark) { !$0.payload.isEmpty }
        #expect(restored.json?["brightness"] == .integer(40) || restored.json?["brightness"] == .integer(70))
        // The desired brightness was saved before the kill, so reconciliation applies it.
        _ = try await rig.observer.wait(for: "youll/lamp", after: restartMark) {
            $0.json?["brightness"] == .integer(70)
        }
        await rig.shutdown()
    }

    @Test(
        "after the broker restarts and forgets every retained message, the bridge republishes them in the documented order"
    )
    func brokerRestart() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 14)
        defer { fleet.stop() }
        try await pair(rig, fleet, name: "porch")
        let mark = await rig.observer.mark
        try await set(rig, "porch", #"{"state":"ON","brightness":60}"#)
        _ = try await rig.observer.wait(for: "youll/porch", after: mark) { $0.json?["brightness"] == .integer(60) }

        rig.broker.stop()
        try await rig.broker.restart()
        // A fresh observer: the old one's session went with the broker.
        let observer = try await BridgeObserver(url: rig.broker.url)
        let state = try await observer.wait(for: "youll/porch", timeout: .seconds(60)) { !$0.payload.isEmpty }
        #expect(state.json?["brightness"] == .integer(60))
        // The republish starts at the bridge's online state; anything seen before it is left out.
        let order = await observer.messages.map(\.topic).filter {
            [
                "youll/bridge/state", "youll/bridge/info", "youll/bridge/devices", "youll/porch/availability",
                "youll/porch",
            ]
            .contains($0)
        }.drop { $0 != "youll/bridge/state" }
        #expect(
            Array(order.prefix(5)) == [
                "youll/bridge/state", "youll/bridge/info", "youll/bridge/devices", "youll/porch/availability",
                "youll/porch",
            ])
        // And it still takes commands.
        let setMark = await observer.mark
        try await observer.publish("youll/porch/set", Array(#"{"brightness":20}"#.utf8))
        _ = try await observer.wait(for: "youll/porch", after: setMark, timeout: .seconds(30)) {
            $0.json?["brightness"] == .integer(20)
        }
        await observer.close()
        await rig.shutdown()
    }
}
