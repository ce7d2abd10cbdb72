import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import MQTTLink
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Home Assistant discovery through the whole daemon: a real mosquitto on a free port,
/// simulated Tuya MQTT devices on it, the daemon in this process with a real SQLite state
/// directory, and a plain MQTT client standing in for Home Assistant.
@Suite("Home Assistant discovery through the daemon", .serialized, .timeLimit(.minutes(3)))
struct HADiscoveryBrokerTests {
    static let timeout = Duration.seconds(20)
    /// A broker, one simulated RGB+CCT bulb and one layout-M diffuser, a state directory.
    final class World: Sendable {
        let broker: LocalBroker
        let fleet: SimulatorFleet
        let state: URL
        /// Home Assistant's side: raw publishes.
        let homeAssistant: MQTTClient

        init() async throws {
            broker = try await LocalBroker.started()
            fleet = try SimulatorFleet(
                options: .init(lights: 1, diffusers: 1, seed: 88), library: Repository.shippedProfiles,
                broker: SwarmConfiguration(brokerURL: broker.url))
            try await fleet.start()
            guard await fleet.waitUntilConnected(timeout: HADiscoveryBrokerTests.timeout) else {
                throw TestFailure("the simulated devices did not connect")
            }
            state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-ha-\(UUID().uuidString)")
            homeAssistant = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            try await homeAssistant.connect()
        }

        var light: DeviceIdentity { fleet.identities[0] }
        var diffuser: DeviceIdentity { fleet.identities[1] }
        var ledger: URL { state.appendingPathComponent("ha-discovery.json") }

        func configTopic(_ identity: DeviceIdentity) -> String { "homeassistant/device/youll_\(identity.devId)/config" }

        func publish(_ topic: String, _ text: String, retain: Bool = false) async throws {
            try await homeAssistant.publish(topic: topic, payload: Array(text.utf8), retain: retain)
        }

        func ledgerTopics() throws -> [String] {
            let value = try CompactJSON.decode(Array(try Data(contentsOf: ledger)))
            guard case .array(let topics)? = value["topics"] else { return [] }
            return topics.compactMap(\.stringValue)
        }

        func close() async {
            await homeAssistant.close()
            fleet.stop()
            broker.stop()
            try? FileManager.default.removeItem(at: state)
        }
    }

    /// The daemon in this process, as `serve` runs it, on the world's broker and state.
    static func withDaemon(
        _ world: World, homeAssistant: Bool = true, profiles: URL = Repository.devicesDirectory,
        _ body: (RunningDaemon) async throws -> Void
    ) async throws {
        try await withRunningDaemon(
            broker: world.broker, state: world.state, version: "9.9.9", profiles: profiles,
            configure: { $0.homeAssistant.enabled = homeAssistant }, body)
    }

    @Test("commands rendered from the discovery templates reach the simulated devices through /set")
    func commandsReachDevices() async throws {
        let world = try await World()
        try await Self.withDaemon(world) { daemon in
            try await daemon.pair(world.light, as: "living-room")
            try await daemon.pair(world.diffuser, as: "bedroom-diffuser")

            // The light: Home Assistant's JSON-schema light publishes its own JSON, fractional hue included.
            let light = try await daemon.config(world.configTopic(world.light))
            let lightComponent = try #require(light["components"]?["light"])
            #expect(lightComponent["schema"] == .string("json"))
            let lightCommand = try #require(lightComponent["command_topic"]?.stringValue)
            let lightState = try await daemon.client.subscribe([
                try #require(lightComponent["state_topic"]?.stringValue)
            ])
            try await world.publish(lightCommand, #"{"state":"ON","brightness":40,"color":{"h":29.8,"s":80.0}}"#)
            let coloured = await daemon.next(lightState) { $0.json?["color"]?["h"] == .integer(30) }
            #expect(coloured?.json?["brightness"] == .integer(40))
            #expect(coloured?.json?["color"]?["s"] == .integer(80))
            // Home Assistant's brightness slider in hs mode sends brightness alone: the colour dims
            // and the bulb stays in colour (DP 21), instead of jumping to white.
            try await world.publish(lightCommand, #"{"state":"ON","brightness":70}"#)
            let brighter = await daemon.next(lightState) { $0.json?["brightness"] == .integer(70) }
            #expect(brighter?.json?["color_mode"] == .string("hs"))
            #expect(brighter?.json?["color"]?["h"] == .integer(30))
            let stillColour = await world.fleet.waitUntil(world.light.devId, timeout: Self.timeout) {
                $0.state[DataPointID(21)!] == .enumeration("colour")
            }
            #expect(stillColour, "DP 21 (work_mode) stays colour in the simulated bulb")
            try await world.publish(lightCommand, #"{"state":"ON","effect":"night"}"#)
            let scene = await daemon.next(lightState) { $0.json?["effect"] == .string("night") }
            #expect(scene?.json?["scene"] == .string("night"))

            // The diffuser's mist fan: its command template, rendered by hand for "ON".
            let diffuser = try await daemon.config(world.configTopic(world.diffuser))
            let mist = try #require(diffuser["components"]?["mist"])
            #expect(
                mist["command_template"]
                    == .string(#"{% if value == 'ON' %}{"state":"ON","mist":"ON"}{% else %}{"mist":"OFF"}{% endif %}"#))
            let mistCommand = try #require(mist["command_topic"]?.stringValue)
            try await world.publish(mistCommand, #"{"state":"ON","mist":"ON"}"#)
            let misting = await world.fleet.waitUntil(world.diffuser.devId, timeout: Self.timeout) { device in
                device.state[DataPointID(1)!] == .bool(true) && device.state[DataPointID(2)!] == .bool(true)
            }
            #expect(misting, "DP 1 (switch) and DP 2 (switch_spray) are on in the simulated diffuser")

            // Its preset mode: `{"mist_mode":"{{ value }}"}` with "small".
            #expect(mist["preset_mode_command_template"] == .string(#"{"mist_mode":"{{ value }}"}"#))
            let presetTopic = try #require(mist["preset_mode_command_topic"]?.stringValue)
            try await world.publish(presetTopic, #"{"mist_mode":"small"}"#)
            let small = await world.fleet.waitUntil(world.diffuser.devId, timeout: Self.timeout) {
                $0.state[DataPointID(3)!] == .enumeration("small")
            }
            #expect(small, "DP 3 (mode) is small in the simulated diffuser")

            // Its LED: Home Assistant rounds 115/255 to 45 on a 0–100 scale; the template wraps it.
            let led = try #require(diffuser["components"]?["led"])
            #expect(led["brightness_command_template"] == .string(#"{"led_brightness":{{ value }}}"#))
            let diffuserState = try await daemon.client.subscribe(["youll/bedroom-diffuser"])
            try await world.publish(
                try #require(led["brightness_command_topic"]?.stringValue), #"{"led_brightness":45}"#)
            let dimmed = await daemon.next(diffuserState) { $0.json?["led_brightness"] == .integer(45) }
            #expect(dimmed != nil)

        }
        await world.close()
    }

    @Test("homeassistant/status online republishes every config, then the devices' state")
    func birthRepublishes() async throws {
        let world = try await World()
        try await Self.withDaemon(world) { daemon in
            try await daemon.pair(world.light, as: "living-room")
            _ = try await daemon.client.set(
                device: "living-room", payload: ["state": .string("ON")], timeout: Self.timeout)
            let configTopic = world.configTopic(world.light)
            let stream = try await daemon.client.subscribe([
                "homeassistant/device/+/config", "youll/living-room",
            ])

            try await world.publish("homeassistant/status", "online")
            // Ends once the light's state is republished after its config (or the time limit fails it).
            var seen: [String] = []
            for await message in stream where !message.retained {
                seen.append(message.topic)
                if message.topic == "youll/living-room", seen.contains(configTopic) { break }
            }
            let bridge = try #require(seen.firstIndex(of: "homeassistant/device/youll_bridge/config"), "\(seen)")
            let light = try #require(seen.firstIndex(of: configTopic), "\(seen)")
            #expect(bridge < light)

        }
        await world.close()
    }

    /// Anyone on the broker can publish `online` on Home Assistant's status topic, and each
    /// one republished every config and state. Births back to back now make one republish at
    /// once (and one more at the end of the interval, `BirthRepublishesTests`).
    @Test("thirty homeassistant/status online back to back republish once, not thirty times")
    func birthFloodRepublishesOnce() async throws {
        let world = try await World()
        try await Self.withDaemon(world) { daemon in
            try await daemon.pair(world.light, as: "living-room")
            let bridgeConfig = "homeassistant/device/youll_bridge/config"
            let marker = "youll/bridge/response/health_check"
            let stream = try await daemon.client.subscribe([bridgeConfig, marker])
            for _ in 0..<30 { try await world.publish("homeassistant/status", "online") }
            // The bridge reads its messages in order and a birth's republish is enqueued before
            // the next message is read: whatever was republished at once is out before this answer.
            let response = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: world.broker.port))
            try await response.connect()
            try await response.publish(
                topic: "youll/bridge/request/health_check", payload: Array(#"{"transaction":"after-births"}"#.utf8))
            await response.close()
            var republished = 0
            for await message in stream where !message.retained {
                if message.topic == marker, String(decoding: message.payload, as: UTF8.self).contains("after-births") {
                    break
                }
                if message.topic == bridgeConfig { republished += 1 }
            }
            #expect(republished == 1)
        }
        await world.close()
    }

    @Test("removing a device clears its retained config and forgets it in the ledger")
    func removalClears() async throws {
        let world = try await World()
        try await Self.withDaemon(world) { daemon in
            try await daemon.pair(world.diffuser, as: "bedroom-diffuser")
            let topic = world.configTopic(world.diffuser)
            _ = try await daemon.config(topic)
            #expect(try world.ledgerTopics().contains(topic))

            let stream = try await daemon.client.subscribe([topic])
            _ = try await daemon.client.request(
                "device/remove", ["id": .string("bedroom-diffuser")], timeout: Self.timeout)
            let cleared = await daemon.next(stream) { $0.payload.isEmpty }
            #expect(cleared != nil)
            #expect(try await daemon.client.retained(topic, timeout: Self.timeout) == nil)
        }
        #expect(try world.ledgerTopics() == ["homeassistant/device/youll_bridge/config"])
        await world.close()
    }

    @Test("a rename republishes the same config topic, its entities now on the new name's topics")
    func renameUpdates() async throws {
        let world = try await World()
        let topic = world.configTopic(world.diffuser)
        try await Self.withDaemon(world) { daemon in
            try await daemon.pair(world.diffuser, as: "bedroom-diffuser")
            let before = try await daemon.config(topic)

            let stream = try await daemon.client.subscribe([topic])
            _ = try await daemon.client.request(
                "device/rename", ["from": .string("bedroom-diffuser"), "to": .string("nursery")], timeout: Self.timeout)
            let after = try #require(
                await daemon.next(stream) { $0.json?["device"]?["name"] == .string("nursery") }?.json)
            #expect(after["components"]?["mist"]?["command_topic"] == .string("youll/nursery/set"))
            #expect(after["components"]?["timer"]?["state_topic"] == .string("youll/nursery"))
            #expect(HADiscoveryFixtureTests.uniqueIDs(after) == HADiscoveryFixtureTests.uniqueIDs(before))
        }
        #expect(try world.ledgerTopics().sorted() == ["homeassistant/device/youll_bridge/config", topic].sorted())
        await world.close()
    }

    @Test("a config recorded in the ledger by an earlier run, whose device is gone, is cleared at start")
    func ghostClearedAtStart() async throws {
        let world = try await World()
        let ghost = "homeassistant/device/youll_bfgone0000/config"
        try FileManager.default.createDirectory(at: world.state, withIntermediateDirectories: true)
        try Data(#"{"topics":["\#(ghost)"]}"#.utf8).write(to: world.ledger)
        try await world.publish(ghost, #"{"device":{"identifiers":["youll_bfgone0000"]}}"#, retain: true)

        try await Self.withDaemon(world) { daemon in
            // The bridge's own config follows the clear in the same republish.
            _ = try await daemon.config("homeassistant/device/youll_bridge/config")
            #expect(try await daemon.client.retained(ghost, timeout: Self.timeout) == nil)
        }
        #expect(try world.ledgerTopics() == ["homeassistant/device/youll_bridge/config"])
        let mode = try FileManager.default.attributesOfItem(atPath: world.ledger.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        await world.close()
    }

    @Test("with home_assistant.enabled off nothing is published and nothing is cleared")
    func switchedOff() async throws {
        let world = try await World()
        let ghost = "homeassistant/device/youll_bfgone0000/config"
        try FileManager.default.createDirectory(at: world.state, withIntermediateDirectories: true)
        try Data(#"{"topics":["\#(ghost)"]}"#.utf8).write(to: world.ledger)
        try await world.publish(ghost, #"{"device":{"identifiers":["youll_bfgone0000"]}}"#, retain: true)

        try await Self.withDaemon(world, homeAssistant: false) { daemon in
            try await daemon.pair(world.light, as: "living-room")
            _ = try await daemon.client.devices(timeout: Self.timeout)
            let retained = try await daemon.client.retained(matching: ["homeassistant/#"], timeout: Self.timeout)
            #expect(retained.map(\.topic) == [ghost])
        }
        #expect(try world.ledgerTopics() == [ghost])
        await world.close()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension RunningDaemon {
    func pair(_ identity: DeviceIdentity, as name: String) async throws {
        try await pair(devId: identity.devId, localKey: identity.localKey, as: name)
    }

    /// The discovery config on `topic`, retained or published once it is decided.
    func config(_ topic: String) async throws -> JSONValue {
        let stream = try await client.subscribe([topic])
        for await message in stream where !message.payload.isEmpty {
            return try #require(message.json, "the config on \(topic) is JSON")
        }
        throw TestFailure("the connection ended before a config appeared on \(topic)")
    }

    /// The next live (not retained) message on `stream` that satisfies `condition`.
    fileprivate func next(
        _ stream: AsyncStream<BridgeMessage>, _ condition: (BridgeMessage) -> Bool
    ) async -> BridgeMessage? {
        for await message in stream where !message.retained && condition(message) { return message }
        return nil
    }
}
