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
        try await Self.withPublisher(seed: 31) { daemon, _, burst in
            try await Self.toggleOffRounds(daemon, burst, toggleTo: "lamp", offTo: "lamp")
        }
    }

    /// One device, two names: its friendly name and its id both reach it, and a client (or two
    /// automations) may use either. The order is the device's, not the topic's.
    @Test("TOGGLE by the light's name then OFF by its id, back to back, leaves the light off")
    func orderHoldsAcrossNameAndID() async throws {
        try await Self.withPublisher(seed: 33) { daemon, lampID, burst in
            try await Self.toggleOffRounds(daemon, burst, toggleTo: "lamp", offTo: lampID)
        }
    }

    /// 8 rounds: the lamp turned on, then 8 TOGGLE/OFF pairs back to back, TOGGLE published
    /// to `youll/<toggleTo>/set` and OFF to `youll/<offTo>/set`; every one is answered "ok"
    /// and the lamp ends each round off.
    static func toggleOffRounds(
        _ daemon: RunningDaemon,
        _ burst: ([(String, String, [String: JSONValue])]) async throws -> [String: JSONValue],
        toggleTo: String, offTo: String
    ) async throws {
        for round in 0..<8 {
            _ = try await daemon.client.set(device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
            let commands = (0..<8).flatMap { pair in
                [(toggleTo, "t\(round).\(pair)", "TOGGLE"), (offTo, "o\(round).\(pair)", "OFF")].map {
                    device, transaction, state in (device, transaction, ["state": JSONValue.string(state)])
                }
            }
            let answers = try await burst(commands)
            #expect(answers.values.allSatisfy { $0 == .string("ok") }, "round \(round): \(answers)")
            #expect(
                try await Self.reportedPower(daemon) == .string("OFF"),
                "round \(round): TOGGLE to \(toggleTo) then OFF to \(offTo) did not leave the light off")
        }
    }

    /// A command refused before it reaches the light (here a brightness that is not a
    /// number) leaves its place in the device's lane like any other.
    @Test("a /set refused by the bridge does not hold up the commands behind it")
    func refusedCommandLeavesTheLane() async throws {
        try await Self.withPublisher(seed: 32) { daemon, _, burst in
            _ = try await daemon.client.set(device: "lamp", payload: ["state": .string("ON")], timeout: Self.timeout)
            let answers = try await burst([
                ("lamp", "bad", ["brightness": .string("bright")]), ("lamp", "toggle", ["state": .string("TOGGLE")]),
                ("lamp", "on", ["state": .string("ON")]), ("lamp", "bad2", ["colour": .integer(3)]),
            ])
            #expect(answers["bad"] == .string("error"))
            #expect(answers["toggle"] == .string("ok"))
            #expect(answers["on"] == .string("ok"))
            #expect(answers["bad2"] == .string("error"))
            #expect(try await Self.reportedPower(daemon) == .string("ON"), "TOGGLE, then ON")
        }
    }

    /// The lamp of `DaemonSetTests`, its id, and `burst`: publishes `(device, transaction,
    /// payload)` triples to `youll/<device>/set` back to back from one client at QoS 0 (so they
    /// leave in that order) and returns each answer's status by transaction once all are in.
    static func withPublisher(
        seed: UInt64,
        _ body: (
            RunningDaemon, _ lampID: String,
            ([(String, String, [String: JSONValue])]) async throws -> [String: JSONValue]
        ) async throws -> Void
    ) async throws {
        try await DaemonSetTests.withLamp(seed: seed) { daemon, broker, lampID in
            let publisher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            defer { Task { await publisher.close() } }
            let events = publisher.events
            try await publisher.connect()
            try await publisher.subscribe("youll/bridge/response/device/set", qos: .atLeastOnce)
            try await body(daemon, lampID) { commands in
                for (device, transaction, payload) in commands {
                    var payload = payload
                    payload["transaction"] = .string(transaction)
                    _ = await publisher.send(
                        topic: "youll/\(device)/set", payload: CompactJSON.encode(.object(payload)), qos: .atMostOnce)
                }
                let sent = Set(commands.map(\.1))
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
