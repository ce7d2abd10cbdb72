import Foundation
import Gateway
import LocalBroker
import MQTTLink
import Testing
import TuyaCore
import YoullTestSupport

/// Requests on topics whose verb cannot be echoed in a response topic, through the whole
/// daemon on a real mosquitto: they used to get no answer at all (issue 15 item 10).
@Suite("Requests on malformed verb topics through the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonUnanswerableVerbTests {
    @Test(
        "a request whose verb has upper case, non-ASCII, '..', spaces or over 64 bytes is answered on bridge/response/invalid with its transaction and the rule"
    )
    func malformedVerbsAreAnswered() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-verb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        try await withRunningDaemon(broker: broker, state: state) { daemon in
            let answers = try await daemon.client.subscribe(["youll/bridge/response/invalid"])
            let publisher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            try await publisher.connect()
            defer { Task { await publisher.close() } }
            let verbs = [
                "Device/Add", "dévice/add", "device/../backup", "device add", String(repeating: "a", count: 65),
            ]
            for (index, verb) in verbs.enumerated() {
                try await publisher.publish(
                    topic: "youll/bridge/request/" + verb, payload: Array(#"{"transaction":\#(index)}"#.utf8))
                let answer = try await answers.first(within: 20, "the answer to \(verb)") { _ in true }
                let object = try #require(answer.json?.objectValue)
                #expect(object["status"]?.stringValue == "error")
                #expect(object["transaction"] == .integer(Int64(index)), "\(verb)")
                let error = try #require(object["error"]?.stringValue)
                #expect(error.contains("is not a verb"), "\(error)")
                #expect(error.contains("lower-case"), "\(error)")
            }
            // A well-formed verb is still answered on its own topic.
            // (`request` throws on an error answer or none within the timeout.)
            _ = try await daemon.client.request("health_check", [:], timeout: daemon.timeout)
        }
    }
}
