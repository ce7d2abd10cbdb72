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
import Storage

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

        Self.step("Starting a private mosquitto broker")
        let broker = try LocalBroker()
        defer { broker.stop() }
        print("  broker on \(broker.url)")

        let fleet = try await Self.startFleet(library: library, brokerURL: broker.url)
        defer { fleet.stop() }
        let (bleDiffuser, radio) = try await Self.placeBLEDiffuser(library: library)
        Self.step("Starting a stock Tuya Wi-Fi bulb on the LAN protocol 3.4 (TCP 6668 at its own loopback address)")
        let lanFleet = try await DemoLANStep.start(library: library)
        for bulb in lanFleet.identities { print("  \(bulb.devId) at \(bulb.ip)  protocol \(bulb.version)") }

        Self.step("Starting the gateway (youll-devices serve) with a temporary state directory")
        let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        let configuration = DemoGateway.configuration(
            stateDirectory: stateDirectory.path, brokerPort: broker.port, directories: directories)
        let metricsPort = Mutex<Int?>(nil)
        let (group, gateway) = DemoGateway.start(configuration, directories: directories, radio: radio) { port in
            metricsPort.withLock { $0 = port }
        }
        let client = try await DemoGateway.connect(configuration, gateway: gateway)
        print("  state in \(stateDirectory.path) (SQLite), bridge API on \(configuration.baseTopic)/bridge/#")
        let eventPrinter = try await Self.printEvents(client, baseTopic: configuration.baseTopic)

        let (paired, confirmed) = try await drive(
            client, baseTopic: configuration.baseTopic, fleet: fleet, bleDiffuser: bleDiffuser, lanFleet: lanFleet,
            library: library, brokerURL: broker.url)

        Self.step("What Home Assistant discovers and Prometheus scrapes (retained discovery configs, GET /metrics)")
        try await DemoObservabilityStep.run(
            client, discoveryPrefix: configuration.homeAssistant.prefix, metricsPort: metricsPort.withLock { $0 })

        try await Self.stop(group, gateway, client: client, baseTopic: configuration.baseTopic)
        await lanFleet.stop()
        let eventCount = await eventPrinter.value

        Self.step("Done")
        let elapsed = start.duration(to: clock.now)
        print(
            "  \(paired) devices paired and \(confirmed) commands confirmed through the MQTT bridge API, "
                + "\(eventCount) bridge events, in \(String(format: "%.1f", Double(DemoText.milliseconds(elapsed)) / 1000)) s"
        )
        print("  gateway, broker and simulated devices stopped; nothing left running")
    }

    /// Starts two simulated lights and a diffuser on the broker and waits for them to connect.
    static func startFleet(library: ProfileLibrary, brokerURL: String) async throws -> SimulatorFleet {
        Self.step("Starting simulated devices: two lights and an aroma diffuser (Tuya's MQTT device protocol)")
        // The diffuser's tank runs dry after 4 s of mist, so the demo can show a maintenance alert.
        let fleet = try SimulatorFleet(
            options: .init(lights: 2, diffusers: 1, seed: 2026, behaviour: DeviceBehaviour(tankDuration: .seconds(4))),
            library: library,
            broker: SwarmConfiguration(brokerURL: brokerURL))
        try await fleet.start()
        guard await fleet.waitUntilConnected(timeout: .seconds(15)) else {
            fleet.stop()
            throw CLIError("simulated devices did not connect")
        }
        for identity in fleet.identities { print("  \(identity.devId)  \(identity.profile.name)") }
        return fleet
    }

    /// Places the BLE diffuser in simulated air; returns it and the radio that reaches it.
    static func placeBLEDiffuser(library: ProfileLibrary) async throws -> (BLEDiffuser, BLERadio) {
        Self.step(
            "Placing a BLE aroma diffuser in range (Tuya BLE protocol 4 over GATT; a socketpair stands in for the L2CAP socket)"
        )
        let air = SimulatedBLEAir()
        let bleDiffuser = try await Self.placeBLEDiffuser(in: air, library: library)
        print("  \(bleDiffuser.devId) at \(bleDiffuser.address)  Dituo BLE aroma diffuser")
        let radio = BLERadio(adapter: "simulated") { identity in
            GATTTuyaTransport { try await air.connect(to: identity.address) }
        }
        return (bleDiffuser, radio)
    }

    /// Everything done through the bridge API, from pairing to the deep link; returns how many
    /// devices were paired and commands confirmed.
    private func drive(
        _ client: BridgeClient, baseTopic: String, fleet: SimulatorFleet, bleDiffuser: BLEDiffuser,
        lanFleet: LANSimulatorFleet, library: ProfileLibrary, brokerURL: String
    ) async throws -> (paired: Int, confirmed: Int) {
        Self.step("Pairing the devices through the bridge API (youll/bridge/request/device/add)")
        var paired = try await DemoPairingStep.run(client, fleet: fleet, bleDiffuser: bleDiffuser)
        paired.append((try await DemoLANStep.pair(client, lanFleet), "light"))

        Self.step("A wrong local key is caught at pairing, not mistaken for an offline device")
        try await DemoPairingStep.wrongKey(client, library: library, brokerURL: brokerURL)

        Self.step("Driving the devices through youll/<name>/set (each answer comes after the device confirmed)")
        let confirmed = try await DemoDrivingStep.run(client)

        Self.step("What a newcomer (or Home Assistant) reads from the broker: retained state per device")
        try await DemoDrivingStep.showRetained(client, names: paired.map(\.name), baseTopic: baseTopic)

        Self.step(
            "A short meditation session through the bridge API (session/start, focus preset: 2 s warm-up, 6 s stage, a bell every 3 s)"
        )
        let session = try await DemoSessionStep.run(client, baseTopic: baseTopic)
        print("  session \(session.state): \(session.cues) cues fired")

        Self.step("The diffuser runs dry: a maintenance alert with a deep link, opened and marked done")
        let alert = try await waitForRefillAlert(client, device: "diffuser")
        print("  alert: \(alert.title) (\(alert.state)) → \(alert.deeplink)")
        let opened = try await DeepLinkOpener.open(
            alert.deeplink, client: client, timeout: .seconds(10), markDone: true)
        for line in opened.lines { print("  open: \(line)") }
        return (paired.count, confirmed)
    }

    /// Stops the gateway as SIGTERM would and shows the bridge gone offline; closes the client.
    static func stop(_ group: ServiceGroup, _ gateway: Task<Void, any Error>, client: BridgeClient, baseTopic: String)
        async throws
    {
        Self.step("Stopping the gateway (as on SIGTERM): requests finish, bridge goes offline, database closes")
        await group.triggerGracefulShutdown()
        try await gateway.value
        let state = try await client.retained("\(baseTopic)/bridge/state", timeout: .seconds(5))
        print("  youll/bridge/state: \(state?.availability ?? "?")")
        await client.close()
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

    /// Prints every bridge event as it comes; the task returns how many there were once the
    /// client is closed.
    static func printEvents(_ client: BridgeClient, baseTopic: String) async throws -> Task<Int, Never> {
        let events = try await client.subscribe(["\(baseTopic)/bridge/event"])
        return Task {
            var count = 0
            for await message in events {
                count += 1
                print("    event: \(DemoText.describeEvent(message.json))")
            }
            return count
        }
    }

    private static func step(_ text: String) {
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
}
