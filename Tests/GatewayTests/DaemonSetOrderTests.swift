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
        try await Self.withPublisher(seed: 31) { daemon, burst in
            for round in 0..<8 {
                _ = try await daemon.client.set(
                    device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
                let commands = (0..<8).flatMap { pair in
                    [("t\(round).\(pair)", "TOGGLE"), ("o\(round).\(pair)", "OFF")].map { transaction, state in
                        (transaction, ["state": JSONValue.string(state)])
                    }
                }
                let answers = try await burst(commands)
                #expect(answers.values.allSatisfy { $0 == .string("ok") }, "round \(round): \(answers)")
                #expect(
                    try await Self.reportedPower(daemon) == .string("OFF"),
                    "round \(round): TOGGLE then OFF did not leave the light off")
            }
        }
    }

    /// A command refused before it reaches the light (here a brightness that is not a
    /// number) leaves its place in the device's lane like any other.
    @Test("a /set refused by the bridge does not hold up the commands behind it")
    func refusedCommandLeavesTheLane() async throws {
        try await Self.withPublisher(seed: 32) { daemon, burst in
            _ = try await daemon.client.set(device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
            let answers = try await burst([
                ("bad", ["brightness": .string("bright")]), ("toggle", ["state": .string("TOGGLE")]),
                ("on", ["state": .string("ON")]), ("bad2", ["colour": .integer(3)]),
            ])
            #expect(answers["bad"] == .string("error"))
            #expect(answers["toggle"] == .string("ok"))
            #expect(answers["on"] == .string("ok"))
            #expect(answers["bad2"] == .string("error"))
            #expect(try await Self.reportedPower(daemon) == .string("ON"), "TOGGLE, then ON")
        }
    }

    /// The lamp of `DaemonSetTests`, and `burst`: publishes `(transaction, payload)` pairs to
    /// `youll/lamp/set` back to back from one client at QoS 0 (so they leave in that order)
    /// and returns each answer's status by transaction once all are in.
    static func withPublisher(
        seed: UInt64,
        _ body: (RunningDaemon, ([(String, [String: JSONValue])]) async throws -> [String: JSONValue]) async throws
            -> Void
    ) async throws {
        try await DaemonSetTests.withLamp(seed: seed) { daemon, broker in
            let publisher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            defer { Task { await publisher.close() } }
            let events = publisher.events
            try await publisher.connect()
            try await publisher.subscribe("youll/bridge/response/device/set", qos: .atLeastOnce)
            try await body(daemon) { commands in
                for (transaction, payload) in commands {
                    var payload = payload
                    payload["transaction"] = .string(transaction)
                    _ = await publisher.send(
                        topic: "youll/lamp/set", payload: CompactJSON.encode(.object(payload)), qos: .atMostOnce)
                }
                let sent = Set(commands.map(\.0))
                return try await withDeadline(Self.timeout, "the answers to \(sent.sorted())") {
                    var statuses: [String: JSONValue] = [:]
                    for await case .message(let message) in events {
                        guard let answer = (try? CompactJSON.decode(message.payload))?.objectValue,
                            case .string(let transaction)? = answer["transaction"], sent.contains(transaction)
                        else { continue }
                        statuses[transaction] = answer["status"]
                        if statuses.count == sent.count { return statuses }
                    }
                    throw DeadlineExceeded(what: "the publisher's events ended")
                }
            }
        }
    }

    /// The power the lamp itself reports when asked.
    static func reportedPower(_ daemon: RunningDaemon) async throws -> JSONValue? {
        let reported = try await daemon.client.refreshedState(device: "lamp", timeout: Self.timeout)
        return try CompactJSON.decode(reported.payload).objectValue?["state"]
    }
}
