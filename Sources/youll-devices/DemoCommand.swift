import ArgumentParser
import BLELink
import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Logging
import ServiceLifecycle
import Synchronization
import TuyaController
import TuyaCore
import TuyaWire

/// `youll-devices demo`: the whole gateway on a fresh machine, no hardware needed. A
/// private mosquitto on a free loopback port, simulated devices speaking Tuya's real
/// protocol to it, the gateway daemon with a temporary state directory, and every step
/// done through the daemon's public MQTT bridge API, as a user or Home Assistant would.
/// Leaves no process or file behind.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the gateway with simulated Tuya devices on a private broker, and drive them through its API.")

    @Option(name: .long, help: "A folder of device profiles (repeatable; default: the installed ones).")
    var profiles: [String] = []

    func run() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let directories = ProfileDirectories.search(explicit: profiles)
        let library = try ProfileDirectories.requireProfiles(in: directories)
        for error in library.errors { print("  warning: profile skipped: \(error)") }

        step("Starting a private mosquitto broker")
        let broker = try LocalBroker()
        defer { broker.stop() }
        print("  broker on \(broker.url)")

        step("Starting simulated devices: two lights and an aroma diffuser (Tuya's MQTT device protocol)")
        // The diffuser's tank runs dry after 4 s of mist, so the demo can show a maintenance alert.
        let fleet = try SimulatorFleet(
            options: .init(lights: 2, diffusers: 1, seed: 2026, behaviour: DeviceBehaviour(tankDuration: .seconds(4))),
            library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        defer { fleet.stop() }
        guard await fleet.waitUntilConnected(timeout: .seconds(15)) else {
            throw CLIError("simulated devices did not connect")
        }
        for identity in fleet.identities { print("  \(identity.devId)  \(identity.profile.name)") }

        step(
            "Placing a BLE aroma diffuser in range (Tuya BLE protocol 4 over GATT; a socketpair stands in for the L2CAP socket)"
        )
        let air = SimulatedBLEAir()
        let bleDiffuser = try await Self.placeBLEDiffuser(in: air, library: library)
        print("  \(bleDiffuser.devId) at \(bleDiffuser.address)  Dituo BLE aroma diffuser")
        let radio = BLERadio(adapter: "simulated") { identity in
            GATTTuyaTransport { try await air.connect(to: identity.address) }
        }

        step("Starting a stock Tuya Wi-Fi bulb on the LAN protocol 3.4 (TCP 6668 at its own loopback address)")
        let lanFleet = try await DemoLANStep.start(library: library)
        for bulb in lanFleet.identities { print("  \(bulb.devId) at \(bulb.ip)  protocol \(bulb.version)") }

        step("Starting the gateway (youll-devices serve) with a temporary state directory")
        let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        var configuration = GatewayConfiguration(
            stateDirectory: stateDirectory.path,
            profiles: .init(
                installed: directories.first?.path ?? "/usr/share/youll-devices/devices", user: "/nonexistent"))
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: broker.port)
        // Metrics on a port of the kernel's choosing: a running `serve` may hold 9464.
        configuration.metrics.listen = .init(host: "127.0.0.1", port: 0)
        // The LAN bulb is paired by its address: no listening on the machine's UDP 6666/6667/7000.
        configuration.lan.discoveryPorts = []
        let metricsPort = Mutex<Int?>(nil)
        var logger = Logger(label: "youll-devices") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .error
        let daemon = GatewayDaemon(
            configuration: configuration, profileDirectories: directories, version: YoullDevices.configuration.version,
            logger: logger, hooks: .init(metricsListening: { port in metricsPort.withLock { $0 = port } }),
            radio: radio)
        let group = ServiceGroup(configuration: .init(services: [daemon], logger: logger))
        let gateway = Task { try await group.run() }

        let client = try BridgeClient(configuration: configuration)
        try await client.connect(timeout: .seconds(10))
        try await waitForBridge(client, gateway: gateway)
        print("  state in \(stateDirectory.path) (SQLite), bridge API on \(configuration.baseTopic)/bridge/#")
        let events = try await client.subscribe(["\(configuration.baseTopic)/bridge/event"])
        let eventPrinter = Task {
            var count = 0
            for await message in events {
                count += 1
                print("    event: \(describeEvent(message.json))")
            }
            return count
        }

        step("Pairing the devices through the bridge API (youll/bridge/request/device/add)")
        let names = ["living-room", "bedroom", "diffuser"]
        var paired: [(name: String, category: String)] = []
        for (identity, name) in zip(fleet.identities, names) {
            let data = try await client.request(
                "device/add",
                ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string(name)],
                timeout: .seconds(30))
            let profile = data.objectValue?["model"]?.stringValue ?? "?"
            print("  \(name): paired with profile \(profile)")
            paired.append((name, data.objectValue?["category"]?.stringValue ?? "light"))
        }
        let bleData = try await client.request(
            "device/add",
            [
                "id": .string(bleDiffuser.devId), "local_key": .string(bleDiffuser.localKey),
                "name": .string("ble-diffuser"), "transport": .string("ble"), "address": .string(bleDiffuser.address),
                "uuid": .string(bleDiffuser.uuid), "product_id": .string(bleDiffuser.productID),
            ],
            timeout: .seconds(30))
        print("  ble-diffuser: paired over BLE with profile \(bleData.objectValue?["model"]?.stringValue ?? "?")")
        paired.append(("ble-diffuser", "diffuser"))
        paired.append((try await DemoLANStep.pair(client, lanFleet), "light"))

        step("A wrong local key is caught at pairing, not mistaken for an offline device")
        let stranger = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 99), library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        defer { stranger.stop() }
        if let identity = stranger.identities.first {
            let message = await pairWithWrongKey(client, stranger, identity.devId)
            print("  guest-lamp with key 0000…: \(message)")
        }

        step("Driving the devices through youll/<name>/set (each answer comes after the device confirmed)")
        var confirmed = 0
        let commands: [(String, [String: JSONValue], String)] = [
            (
                "living-room", ["state": .string("ON"), "brightness": .integer(30), "color_temp": .integer(2700)],
                "warm and dim: on, 30 %, 2700 K"
            ),
            (
                "bedroom",
                ["state": .string("ON"), "color": .object(["hue": .integer(30), "saturation": .integer(80)])],
                "amber: hue 30°, 80 % saturation"
            ),
            (
                "diffuser",
                ["state": .string("ON"), "mist": .string("ON"), "led": .string("ON"), "led_brightness": .integer(20)],
                "mist on, LED at 20 %"
            ),
            (
                "ble-diffuser", ["state": .string("ON"), "mist": .string("ON"), "mist_mode": .string("large")],
                "BLE: mist on, large"
            ),
            (DemoLANStep.name, ["state": .string("ON"), "brightness": .integer(60)], "LAN 3.4: on, 60 %"),
            ("living-room", ["brightness": .integer(100), "color_temp": .integer(5000)], "sunrise end: 100 %, 5000 K"),
        ]
        for (name, payload, what) in commands {
            let started = clock.now
            let data = try await client.set(device: name, payload: payload, timeout: .seconds(15))
            let elapsed = started.duration(to: clock.now)
            confirmed += 1
            print("  \(name): \(what) → confirmed in \(milliseconds(elapsed)) ms")
            print("    \(describeState(data.objectValue?["state"]))")
        }
        do {
            _ = try await client.set(
                device: "living-room", payload: ["brightness": .integer(140)], timeout: .seconds(15))
        } catch {
            print("  living-room: brightness 140 → refused: \(error)")
        }

        step("What a newcomer (or Home Assistant) reads from the broker: retained state per device")
        for (name, _) in paired {
            let state = try await client.retained("\(configuration.baseTopic)/\(name)", timeout: .seconds(5))
            let availability = try await client.retained(
                "\(configuration.baseTopic)/\(name)/availability", timeout: .seconds(5))
            print(
                "  \(configuration.baseTopic)/\(name) [\(availability?.availability ?? "?")]: \(describeState(state?.json))"
            )
        }
        let health = try await client.request("health_check", timeout: .seconds(10))
        print("  health_check: \(CompactJSONText(health))")

        step(
            "A short meditation session through the bridge API (session/start, focus preset: 2 s warm-up, 6 s stage, a bell every 3 s)"
        )
        let session = try await DemoSessionStep.run(client, baseTopic: configuration.baseTopic)
        print("  session \(session.state): \(session.cues) cues fired")

        step("The diffuser runs dry: a maintenance alert with a deep link, opened and marked done")
        let alert = try await waitForRefillAlert(client, device: "diffuser")
        print("  alert: \(alert.title) (\(alert.state)) → \(alert.deeplink)")
        let opened = try await DeepLinkOpener.open(
            alert.deeplink, client: client, timeout: .seconds(10), markDone: true)
        for line in opened.lines { print("  open: \(line)") }

        step("What Home Assistant discovers and Prometheus scrapes (retained discovery configs, GET /metrics)")
        try await DemoObservabilityStep.run(
            client, discoveryPrefix: configuration.homeAssistant.prefix, metricsPort: metricsPort.withLock { $0 })

        step("Stopping the gateway (as on SIGTERM): requests finish, bridge goes offline, database closes")
        await group.triggerGracefulShutdown()
        try await gateway.value
        let state = try await client.retained("\(configuration.baseTopic)/bridge/state", timeout: .seconds(5))
        print("  youll/bridge/state: \(state?.availability ?? "?")")
        await client.close()
        await lanFleet.stop()
        let eventCount = await eventPrinter.value

        step("Done")
        let elapsed = start.duration(to: clock.now)
        print(
            "  \(paired.count) devices paired and \(confirmed) commands confirmed through the MQTT bridge API, "
                + "\(eventCount) bridge events, in \(String(format: "%.1f", Double(milliseconds(elapsed)) / 1000)) s")
        print("  gateway, broker and simulated devices stopped; nothing left running")
    }

    /// The BLE diffuser's identity, as the Tuya cloud (and `pair ble --scan`) would give it.
    struct BLEDiffuser {
        var devId = "bf3a7c1e90d2b4ble1"
        var localKey = "b5T!q8Wz#p2Lm4Xr"
        var uuid = "tuya4a1b2c3d4e5f"
        var address = "DC:23:4D:20:26:01"
        var productID = "if1nolcm"
    }

    static func placeBLEDiffuser(in air: SimulatedBLEAir, library: ProfileLibrary) async throws -> BLEDiffuser {
        let diffuser = BLEDiffuser()
        guard let profile = library.profile(id: "ble-diffuser-dituo") else {
            throw CLIError("the profile ble-diffuser-dituo is not installed")
        }
        let device = try SimulatedBLEDevice(
            identity: .init(
                uuid: diffuser.uuid, localKey: diffuser.localKey, devId: diffuser.devId, protocolVersion: 4),
            profile: profile, seed: 2026)
        await air.place(SimulatedBLEPeripheral(device: device), at: diffuser.address, layout: .fd50)
        return diffuser
    }

    private func step(_ text: String) {
        print("\n== \(text)")
    }

    /// The refill reminder of `device` once it is due, read from its retained maintenance
    /// topic (the alert event may have come and gone while the devices were being driven).
    private func waitForRefillAlert(_ client: BridgeClient, device: String) async throws
        -> (title: String, state: String, deeplink: String)
    {
        let topic = "\(client.baseTopic)/\(device)/maintenance"
        let updates = try await client.subscribe([topic])
        let found = Task { () -> (String, String, String)? in
            for await message in updates {
                guard case .array(let reminders)? = message.json else { continue }
                for case .object(let reminder) in reminders
                where reminder["type"]?.stringValue == "refill" && reminder["state"]?.stringValue != "ok" {
                    if let deeplink = reminder["deeplink"]?.stringValue {
                        return (
                            reminder["title"]?.stringValue ?? "refill", reminder["state"]?.stringValue ?? "due",
                            deeplink
                        )
                    }
                }
            }
            return nil
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(20))
            found.cancel()
        }
        defer { timeout.cancel() }
        guard let alert = await found.value else {
            throw CLIError("the diffuser's refill reminder never became due")
        }
        return (alert.0, alert.1, alert.2)
    }

    /// Waits until the in-process gateway's bridge says online (or the gateway failed).
    private func waitForBridge(_ client: BridgeClient, gateway: Task<Void, any Error>) async throws {
        for _ in 0..<100 {
            if (try? await client.requireDaemonOnline(timeout: .seconds(2))) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        gateway.cancel()
        throw CLIError("the gateway did not come online")
    }

    /// A device reveals a wrong key only by what it sends, so the lamp is switched on while
    /// pairing is under way (and off and on again, as a person trying would).
    private func pairWithWrongKey(_ client: BridgeClient, _ stranger: SimulatorFleet, _ devId: String) async -> String {
        let toggling = Task {
            try await Task.sleep(for: .milliseconds(100))
            try await stranger.start()
            while true {
                try await Task.sleep(for: .milliseconds(500))
                await stranger.goOffline(devId)
                await stranger.comeOnline(devId)
            }
        }
        defer { toggling.cancel() }
        do {
            _ = try await client.request(
                "device/add",
                ["id": .string(devId), "local_key": .string("0000000000000000"), "name": .string("guest-lamp")],
                timeout: .seconds(30))
            return "paired (unexpected)"
        } catch {
            return "\(error)"
        }
    }
}

private func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
}

private func CompactJSONText(_ value: JSONValue) -> String {
    String(decoding: CompactJSON.encode(value), as: UTF8.self)
}

private func describeEvent(_ json: JSONValue?) -> String {
    let type = json?.objectValue?["type"]?.stringValue ?? "?"
    let data = json?.objectValue?["data"]?.objectValue ?? [:]
    if let session = DemoSessionStep.describe(type: type, data: data) { return session }
    switch type {
    case "device_paired":
        let device = data["device"]?.objectValue
        return
            "device_paired \(device?["friendly_name"]?.stringValue ?? "?") (\(device?["profile"]?.stringValue ?? "?"))"
    case "pairing_failed":
        return "pairing_failed \(data["id"]?.stringValue ?? "?"): \(data["reason"]?.stringValue ?? "?")"
    case "maintenance_alert":
        let alert = data["alert"]?.objectValue
        return
            "maintenance_alert \(alert?["friendly_name"]?.stringValue ?? "?"): \(alert?["type"]?.stringValue ?? "?") "
            + "(\(alert?["state"]?.stringValue ?? "?"))"
    case "command_failed":
        return "command_failed \(data["friendly_name"]?.stringValue ?? "?"): \(data["error"]?.stringValue ?? "?")"
    default:
        let subject = data["friendly_name"]?.stringValue ?? data["id"]?.stringValue
        return subject.map { "\(type) \($0)" } ?? type
    }
}

private func describeState(_ json: JSONValue?) -> String {
    guard let fields = json?.objectValue else { return "no report yet" }
    var parts = [fields["state"]?.stringValue == "ON" ? "on" : "off"]
    if let mode = fields["color_mode"]?.stringValue { parts.append("mode \(mode)") }
    if fields["color_mode"]?.stringValue == "hs", let colour = fields["color"]?.objectValue {
        parts.append("hue \(colour["hue"]?.int64Value ?? 0)°, saturation \(colour["saturation"]?.int64Value ?? 0) %")
    } else {
        if let brightness = fields["brightness"]?.int64Value { parts.append("brightness \(brightness) %") }
        if let kelvin = fields["color_temp"]?.int64Value { parts.append("\(kelvin) K") }
    }
    if let mist = fields["mist"]?.stringValue { parts.append("mist \(mist.lowercased())") }
    if let mode = fields["mist_mode"]?.stringValue { parts.append("mode \(mode)") }
    if let led = fields["led"]?.stringValue { parts.append("LED \(led.lowercased())") }
    if let brightness = fields["led_brightness"]?.int64Value { parts.append("LED \(brightness) %") }
    if case .array(let faults)? = fields["faults"], !faults.isEmpty {
        parts.append("faults: \(faults.compactMap(\.stringValue).joined(separator: ", "))")
    }
    return parts.joined(separator: ", ")
}
