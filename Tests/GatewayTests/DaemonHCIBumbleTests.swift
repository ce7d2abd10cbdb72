import BLELink
import Foundation
import Gateway
import LocalBroker
import Logging
import ServiceLifecycle
import Testing
import TuyaCore
import YoullTestSupport

/// The whole daemon on `ble.transport: h4-tcp:…`: its own HCI host over TCP to Bumble's
/// virtual controller, a Bumble peripheral answering the Tuya BLE protocol, a real mosquitto on
/// a free port, a real SQLite state directory, the bridge API through the real `BridgeClient`.
/// The device advertises from a public address, as most Tuya devices do.
@Suite("The daemon on its own HCI host against Bumble", .serialized, .timeLimit(.minutes(2)))
struct DaemonHCIBumbleTests {
    static let address = "DC:23:4D:20:26:02"
    static let uuid = "tuyabumbled00001"
    static let localKey = "b5T!q8Wz#p2Lm4Xr"
    static let devId = "bf3a7c1e90d2b4hci1"
    static let timeout = Duration.seconds(20)

    static var profilesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("devices")
    }

    static let peripheral = BumbleRig.Peripheral(
        address: address, layout: "fd50", uuid: uuid, localKey: localKey, devId: devId, productID: "if1nolcm",
        protocolVersion: 4,
        dps: [
            "1": .bool(false), "2": .bool(false), "3": .enumeration(0), "5": .enumeration(0), "6": .value(0),
            "7": .bool(false), "9": .value(50), "12": .enumeration(0), "101": .enumeration(0),
        ], isPublic: true)

    @Test("permit_join finds the device by scanning through the HCI host; device/add binds it; /set is confirmed")
    func scanPairDrive() async throws {
        let rig = try await BumbleRig.start(peripherals: [Self.peripheral])
        defer { rig.stop() }
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-hci-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        var configuration = GatewayConfiguration(
            stateDirectory: state.path, profiles: .init(installed: Self.profilesDirectory.path, user: "/nonexistent"))
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: broker.port)
        configuration.metrics.enabled = false
        configuration.ble.mode = .on
        configuration.ble.transport = try BLETransportSetting(parsing: rig.transport)
        var logger = Logger(label: "daemon-hci-test")
        logger.logLevel = .critical
        let daemon = GatewayDaemon(
            configuration: configuration, profileDirectories: [Self.profilesDirectory], version: "test", logger: logger)
        let group = ServiceGroup(configuration: .init(services: [daemon], logger: logger))
        let run = Task { try await group.run() }
        let client = try BridgeClient(configuration: configuration)
        try await client.connect(timeout: Self.timeout)
        let online = try await client.subscribe(["youll/bridge/state"])
        for await message in online where message.availability == "online" { break }

        let events = try await client.subscribe(["youll/bridge/event"])
        _ = try await client.request(
            "permit_join", ["value": .bool(true), "time": .integer(60), "transport": .string("ble")],
            timeout: Self.timeout)
        var found: [String: JSONValue]?
        for await message in events {
            let object = message.json?.objectValue
            if object?["type"]?.stringValue == "device_found" {
                found = object?["data"]?.objectValue
                break
            }
        }
        #expect(found?["address"]?.stringValue == Self.address)
        #expect(found?["product_id"]?.stringValue == "if1nolcm")
        #expect(found?["profile"]?.stringValue == "ble-diffuser-dituo")
        #expect(found?["bound"] == .bool(false))

        let added = try await client.request(
            "device/add",
            [
                "id": .string(Self.devId), "local_key": .string(Self.localKey), "name": .string("aroma"),
                "transport": .string("ble"), "address": .string(Self.address),
                "uuid": .string(Self.uuid), "product_id": .string("if1nolcm"),
            ], timeout: Self.timeout)
        #expect(added.objectValue?["profile"]?.stringValue == "ble-diffuser-dituo")
        try await rig.expectLine(containing: "\(Self.address) paired")

        let answer = try await client.set(
            device: "aroma", payload: ["mist": .string("ON"), "mist_mode": .string("large")], timeout: Self.timeout)
        #expect(answer.objectValue?["state"]?.objectValue?["mist_mode"]?.stringValue == "large")
        try await rig.expectLine(containing: "\(Self.address) write 2=true,3=1")
        let health = try await client.request("health_check", timeout: Self.timeout)
        #expect(health.objectValue?["ble"]?.objectValue?["adapter"]?.stringValue == rig.transport)

        await group.triggerGracefulShutdown()
        try await run.value
        await client.close()
    }
}
