import Foundation
import Gateway
import MQTTLink
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Commands published back to back on `<name>/set` take effect in the order they were
/// published: what Home Assistant or a script sends last is what the light ends up doing.
@Suite("Back-to-back /set commands through the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonSetOrderTests {
    static let timeout = Duration.seconds(20)

    /// TOGGLE reads the light's current state before it is sent, OFF does not: were the two
    /// handled side by side, OFF could reach the light first and TOGGLE would then turn the
    /// light back on.
    @Test("TOGGLE then OFF, published back to back, leaves the light off, round after round")
    func toggleThenOffEndsOff() async throws {
        try await DaemonSetTests.withLamp(seed: 31) { daemon, broker in
            let publisher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            defer { Task { await publisher.close() } }
            let events = publisher.events
            try await publisher.connect()
            try await publisher.subscribe("youll/bridge/response/device/set", qos: .atLeastOnce)
            for round in 0..<8 {
                _ = try await daemon.client.set(
                    device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
                var sent: Set<String> = []
                for pair in 0..<8 {
                    let toggle = CompactJSON.encode(
                        .object(["state": .string("TOGGLE"), "transaction": .string("t\(round).\(pair)")]))
                    let off = CompactJSON.encode(
                        .object(["state": .string("OFF"), "transaction": .string("o\(round).\(pair)")]))
                    _ = await publisher.send(topic: "youll/lamp/set", payload: toggle, qos: .atMostOnce)
                    _ = await publisher.send(topic: "youll/lamp/set", payload: off, qos: .atMostOnce)
                    sent.formUnion(["t\(round).\(pair)", "o\(round).\(pair)"])
                }
                try await withDeadline(Self.timeout, "the answers of round \(round)") { [sent] in
                    var waiting = sent
                    for await case .message(let message) in events {
                        let answer = try? CompactJSON.decode(message.payload)
                        guard case .string(let transaction)? = answer?.objectValue?["transaction"] else { continue }
                        #expect(
                            answer?.objectValue?["status"] == .string("ok"),
                            "\(String(decoding: message.payload, as: UTF8.self))")
                        waiting.remove(transaction)
                        if waiting.isEmpty { return }
                    }
                    throw DeadlineExceeded(what: "the publisher's events ended")
                }
                let reported = try await daemon.client.refreshedState(device: "lamp", timeout: Self.timeout)
                let state = try CompactJSON.decode(reported.payload).objectValue?["state"]
                #expect(
                    state == .string("OFF"),
                    "round \(round): TOGGLE then OFF left the light \(String(describing: state))")
            }
        }
    }
}
