import BLELink
import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Testing
import TuyaController
import TuyaCore
import TuyaWire
import YoullTestSupport

/// BLE devices through the whole daemon: a real mosquitto on a free port, a real SQLite
/// state directory, the bridge API through the real `BridgeClient`, and BLE links to a
/// simulated Tuya BLE diffuser over `socketpair(AF_UNIX, SOCK_SEQPACKET)` (the one part
/// standing in for BlueZ's L2CAP socket, which this kernel cannot open).
@Suite("The daemon with a BLE diffuser", .serialized, .timeLimit(.minutes(2)))
struct DaemonBLETests {
    static let uuid = "tuya4a1b2c3d4e5f"
    static let localKey = "b5T!q8Wz#p2Lm4Xr"
    static let devId = "bf3a7c1e90d2b4ble1"
    static let address = "DC:23:4D:20:26:01"
    static let timeout = Duration.seconds(20)

    /// One simulated diffuser in range, at `address`, speaking protocol 4 over the FD50 layout.
    static func air() async throws -> (SimulatedBLEAir, SimulatedBLEPeripheral) {
        let library = Repository.shippedProfiles
        let profile = try #require(library.profile(id: "ble-diffuser-dituo"))
        let device = try SimulatedBLEDevice(
            identity: .init(uuid: uuid, localKey: localKey, devId: devId, protocolVersion: 4), profile: profile, seed: 9
        )
        let peripheral = SimulatedBLEPeripheral(device: device)
        let air = SimulatedBLEAir()
        await air.place(peripheral, at: address, layout: .fd50)
        return (air, peripheral)
    }

    /// The daemon in this process (as `demo` runs it), with a radio into `air`. With
    /// `metricsPort`, metrics are served on a free port, written there once listening.
    static func withDaemon<T>(
        _ broker: LocalBroker, state: URL, air: SimulatedBLEAir, metricsPort: ListeningPort? = nil,
        _ body: (RunningDaemon) async throws -> T
    ) async throws -> T {
        let radio = BLERadio(adapter: "simulated") { identity in
            GATTTuyaTransport { try await air.connect(to: identity.address) }
        }
        return try await withRunningDaemon(
            broker: broker, state: state, radio: radio,
            hooks: .init(metricsListening: { bound in metricsPort?.set(bound) }),
            configure: { configuration in
                configuration.ble.mode = .auto
                configuration.metrics.enabled = metricsPort != nil
            }, body)
    }

    static func addRequest(uuid: String = uuid, address: String = address) -> [String: JSONValue] {
        [
            "id": .string(devId), "local_key": .string(localKey), "name": .string("aroma"), "transport": .string("ble"),
            "address": .string(address), "uuid": .string(uuid), "product_id": .string("if1nolcm"),
        ]
    }

    @Test(
        "device/add over BLE pairs and stores the diffuser; /set is confirmed by the device; a restart loads it from SQLite"
    )
    func pairDriveRestart() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-ble-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let (air, peripheral) = try await Self.air()

        try await Self.withDaemon(broker, state: state, air: air) { first in
            let added = try await first.client.request("device/add", Self.addRequest(), timeout: Self.timeout)
            #expect(added.objectValue?["transport"]?.stringValue == "ble")
            #expect(added.objectValue?["profile"]?.stringValue == "ble-diffuser-dituo")
            #expect(!String(decoding: CompactJSON.encode(added), as: UTF8.self).contains(Self.localKey))

            let answer = try await first.client.set(
                device: "aroma",
                payload: ["state": .string("ON"), "mist": .string("ON"), "mist_mode": .string("large")],
                timeout: Self.timeout)
            #expect(answer.objectValue?["state"]?.objectValue?["mist_mode"]?.stringValue == "large")
            // The device's own DPs changed: the command went over the BLE session.
            #expect(await peripheral.state[DataPointID(2)!] == .bool(true))
            #expect(await peripheral.state[DataPointID(3)!] == .enumeration("large"))
            // health_check (and so doctor) shows the adapter's link to it.
            let health = try await first.client.request("health_check", timeout: Self.timeout)
            let ble = health.objectValue?["ble"]?.objectValue
            #expect(ble?["adapter"]?.stringValue == "simulated")
            #expect(ble?["limit"]?.int64Value == 3)
            #expect(ble?["connected"] == .array([.string("aroma")]))
            // The retained state follows (it may be published just after the answer).
            let published = try await first.client.subscribe(["youll/aroma"])
            for await message in published where message.json?.objectValue?["mist_mode"]?.stringValue == "large" {
                #expect(message.json?.objectValue?["mist"]?.stringValue == "ON")
                break
            }
        }

        // A restart reads the device (address, uuid, key) back from SQLite and drives it again.
        try await Self.withDaemon(broker, state: state, air: air) { second in
            let devices = try await second.client.devices(timeout: Self.timeout)
            #expect(devices.map(\.friendlyName) == ["aroma"])
            #expect(devices.first?.transport == "ble")
            _ = try await second.client.set(
                device: "aroma", payload: ["mist_mode": .string("small")], timeout: Self.timeout)
            #expect(await peripheral.state[DataPointID(3)!] == .enumeration("small"))
            let pairings = await peripheral.statistics.pairings
            #expect(pairings >= 2, "the second daemon opened its own session")
        }
    }

    @Test(
        "BLE pairing failures reach the bridge as pairing_failed reasons and the metrics by reason; nothing is stored")
    func pairingFailures() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-ble-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let (air, _) = try await Self.air()
        let metricsPort = ListeningPort()
        try await Self.withDaemon(broker, state: state, air: air, metricsPort: metricsPort) { daemon in
            let events = try await daemon.client.subscribe(["youll/bridge/event"])

            for (request, reason) in [
                (Self.addRequest(uuid: "notthedeviceuuid"), "refused"),
                (Self.addRequest(address: "DC:23:4D:00:00:01"), "not_found"),
            ] {
                do {
                    _ = try await daemon.client.request("device/add", request, timeout: Self.timeout)
                    Issue.record("\(reason): device/add succeeded")
                } catch {
                    #expect(String(describing: error).contains("device/add"))
                }
                var seen: String?
                for await message in events {
                    let object = message.json?.objectValue
                    if object?["type"]?.stringValue == "pairing_failed" {
                        seen = object?["data"]?.objectValue?["reason"]?.stringValue
                        break
                    }
                }
                #expect(seen == reason)
            }
            #expect(try await daemon.client.devices(timeout: Self.timeout).isEmpty)
            // Prometheus counts each failure under its reason.
            let port = try #require(metricsPort.port)
            let scrape = try await HTTPScrape.get(port: port, path: "/metrics")
            #expect(HTTPScrape.sample(#"youll_ble_failures_total{reason="refused"}"#, in: scrape.body) == 1)
            #expect(
                (HTTPScrape.sample(#"youll_ble_failures_total{reason="connect_failed"}"#, in: scrape.body) ?? 0) >= 1)
            #expect(HTTPScrape.sample(#"youll_ble_failures_total{reason="wrong_key"}"#, in: scrape.body) == 0)
        }
    }
}
