import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import MQTTLink
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// `<name>/set` through the whole daemon on a real mosquitto and a simulated light: what the
/// bridge publishes for it, and the commands that read the light's current state.
@Suite("A device's /set through the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonSetTests {
    static let timeout = Duration.seconds(20)

    /// A real broker, one simulated light and the daemon, with the light paired as "lamp".
    static func withLamp(
        seed: UInt64, _ body: (RunningDaemon, LocalBroker, _ lampID: String) async throws -> Void
    ) async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-set-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: seed), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        defer { fleet.stop() }
        #expect(await fleet.waitUntilConnected(timeout: timeout))
        let identity = try #require(fleet.identities.first)
        try await withRunningDaemon(broker: broker, state: state) { daemon in
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "lamp")
            try await body(daemon, broker, identity.devId)
        }
    }

    /// As zigbee2mqtt does, at QoS 0. A subscriber asking for QoS 1 gets the lower of the
    /// two, so what it receives says what the bridge sent.
    @Test(
        "a confirmed /set's answer and the device's new state reach a QoS 1 subscriber at QoS 0, as does everything live the bridge sends"
    )
    func commandTrafficIsQoS0() async throws {
        try await Self.withLamp(seed: 27) { daemon, broker, _ in
            let watcher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            defer { Task { await watcher.close() } }
            let events = watcher.events
            try await watcher.connect()
            try await watcher.subscribe("youll/#", qos: .atLeastOnce)

            _ = try await daemon.client.set(
                device: "lamp", payload: ["state": .string("ON"), "brightness": .integer(40)], timeout: Self.timeout)
            // Live messages up to both the answer and the state it confirmed.
            let received = try await withDeadline(Self.timeout, "the answer and the new state") {
                var seen: [MQTTMessage] = []
                var (answered, confirmed) = (false, false)
                for await case .message(let message) in events where !message.retain {
                    seen.append(message)
                    answered = answered || message.topic == "youll/bridge/response/device/set"
                    confirmed =
                        confirmed
                        || message.topic == "youll/lamp"
                            && (try? CompactJSON.decode(message.payload))?.objectValue?["brightness"] == .integer(40)
                    if answered && confirmed { return seen }
                }
                throw DeadlineExceeded(what: "the watcher's events ended")
            }
            let answer = try #require(received.first { $0.topic == "youll/bridge/response/device/set" })
            let live = try #require(received.last { $0.topic == "youll/lamp" })
            #expect(answer.qos == .atMostOnce)
            #expect(live.qos == .atMostOnce)
            // Everything else the bridge sent meanwhile is QoS 0 as well, so libmosquitto sends
            // its messages in the order they were handed over: none waits behind a full QoS 1
            // window while a later one overtakes it.
            let fromBridge = received.filter { $0.topic != "youll/lamp/set" }
            #expect(fromBridge.allSatisfy { $0.qos == .atMostOnce }, "\(fromBridge.map { ($0.topic, $0.qos) })")
        }
    }

    @Test(
        "TOGGLE flips the power the light reports, both ways, and a colour without a brightness keeps the brightness it has"
    )
    func commandsThatReadTheCurrentState() async throws {
        try await Self.withLamp(seed: 28) { daemon, _, _ in
            func set(_ payload: [String: JSONValue]) async throws -> [String: JSONValue] {
                let answer = try await daemon.client.set(device: "lamp", payload: payload, timeout: Self.timeout)
                return try #require(answer.objectValue?["state"]?.objectValue, "\(answer)")
            }
            let on = try await set(["state": .string("ON"), "brightness": .integer(40)])
            #expect(on["state"] == .string("ON"))
            #expect(try await set(["state": .string("TOGGLE")])["state"] == .string("OFF"))
            #expect(try await set(["state": .string("toggle")])["state"] == .string("ON"))
            let coloured = try await set(["color": .object(["h": .integer(120), "s": .integer(50)])])
            #expect(coloured["brightness"] == on["brightness"], "\(coloured)")
            #expect(coloured["brightness"] == .integer(40))
        }
    }
}
