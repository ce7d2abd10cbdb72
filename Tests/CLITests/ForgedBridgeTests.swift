import Foundation
import LocalBroker
import MQTTLink
import Testing
import TuyaCore
import TuyaWire

/// Real parts: the built `youll-devices` binary and a private mosquitto. No daemon: the test
/// plays a forged one. Any client of the broker can publish on the bridge's response topics
/// (a request's transaction is visible on its own topic), so what the CLI reads there is
/// untrusted: absurd numbers give a line or a clear error, never a crash.
@Suite("youll-devices against a forged bridge", .serialized, .timeLimit(.minutes(2)))
struct ForgedBridgeTests {
    /// Answers every request on `youll/bridge/request/#` with `status: ok` and `data`, as the
    /// daemon would with the transaction it was sent, after publishing the retained `online`
    /// state the CLI checks first.
    final class ForgedBridge: Sendable {
        let client: MQTTClient
        let answering: Task<Void, Never>

        init(broker: LocalBroker, data: @escaping @Sendable (_ verb: String) -> JSONValue) async throws {
            let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            self.client = client
            let events = client.events
            try await client.connect()
            try await client.publish(
                topic: "youll/bridge/state", payload: Array(#"{"state":"online"}"#.utf8), qos: .atLeastOnce,
                retain: true)
            try await client.subscribe("youll/bridge/request/#", qos: .atLeastOnce)
            answering = Task {
                for await case .message(let message) in events {
                    let verb = String(message.topic.dropFirst("youll/bridge/request/".count))
                    guard let request = try? CompactJSON.decode(message.payload).objectValue,
                        let transaction = request["transaction"]
                    else { continue }
                    let answer: JSONValue = .object([
                        "status": .string("ok"), "data": data(verb), "transaction": transaction,
                    ])
                    _ = try? await client.publish(
                        topic: "youll/bridge/response/\(verb)", payload: CompactJSON.encode(answer),
                        qos: .atMostOnce)
                }
            }
        }

        func stop() async {
            answering.cancel()
            await client.close()
        }
    }

    func environment(_ broker: LocalBroker) -> [String: String] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("youll-forged-\(UUID().uuidString)")
            .path
        return [
            "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.state", "NO_COLOR": "1",
            "YOULL_MQTT_URL": broker.url,
        ]
    }

    static let absurd: [JSONValue] = [.double(1e300), .double(-1e300), .integer(.max), .integer(.min), .integer(-5)]

    @Test("timer status with absurd elapsed and remaining seconds prints a line", arguments: absurd)
    func timerStatus(value: JSONValue) async throws {
        let broker = try await LocalBroker.started()
        let bridge = try await ForgedBridge(broker: broker) { _ in
            .object([
                "state": .string("running"), "phase": .string("stage"), "stage": .string("sit"),
                "elapsed_seconds": value, "remaining_seconds": .integer(10), "next_bell_seconds": value,
            ])
        }
        let result = try await CLIRunner.run(["timer", "status", "--timeout", "10"], environment: environment(broker))
        await bridge.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("sit  "), "\(result.stdout)")
    }

    @Test("pair permit with an absurd window answers within its own bounds", arguments: absurd)
    func permitWindow(value: JSONValue) async throws {
        let broker = try await LocalBroker.started()
        let bridge = try await ForgedBridge(broker: broker) { _ in .object(["value": .bool(true), "time": value]) }
        let result = try await CLIRunner.run(
            ["pair", "permit", "--seconds", "1", "--timeout", "10"], environment: environment(broker))
        await bridge.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("pairing permitted for 1 s"), "\(result.stderr)")
    }
}
