import Foundation
import Synchronization
import Testing
import Timing

@testable import MQTTLink

/// Integration tests on a real mosquitto: a persistent session's messages, kept by the broker
/// while the client was away, arrive in the same read as the CONNACK of the next connection.
@Suite("MQTT client: messages kept for a persistent session", .serialized, .timeLimit(.minutes(1)))
struct MQTTClientSessionTests {
    private func client(_ broker: TestBroker, _ id: String) throws -> MQTTClient {
        try MQTTClient(
            configuration: MQTTConfiguration(
                host: "127.0.0.1", port: broker.port, clientID: id,
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.2)))
    }

    /// What the bridge does with a request that waited at the broker while the daemon was
    /// down: it answers at QoS 0 as soon as the request arrives. The answer must go out, not
    /// fail as "not connected" because the client had not yet handled its own CONNACK.
    @Test("a reply sent at QoS 0 on the arrival of a message kept for the session goes out, round after round")
    func replyOnArrivalAfterReconnect() async throws {
        let broker = try TestBroker()
        let requester = try client(broker, "session-requester")
        var replies = EventReader(requester)
        try await requester.connect()
        try await requester.subscribe("session/reply/#", qos: .atLeastOnce)
        let away = try client(broker, "session-responder")
        try await away.connect()
        try await away.subscribe("session/request/#", qos: .atLeastOnce)
        await away.close()
        for round in 0..<12 {
            // Kept by the broker for the responder's session while it is away.
            try await requester.publish(topic: "session/request/\(round)", payload: [1], qos: .atLeastOnce)
            let responder = try client(broker, "session-responder")
            let events = responder.events
            let answered = Task { () -> String in
                for await case .message(let request) in events {
                    do {
                        try await responder.publish(
                            topic: "session/reply/\(round)", payload: request.payload, qos: .atMostOnce)
                        return "sent"
                    } catch {
                        return "\(error)"
                    }
                }
                return "no request arrived"
            }
            try await responder.connect()
            let outcome = await answered.value
            #expect(outcome == "sent", "round \(round): the reply on arrival failed: \(outcome)")
            if outcome == "sent" {
                #expect(await replies.message(on: "session/reply/\(round)")?.payload == [1], "round \(round)")
            }
            await responder.close()
        }
        await requester.close()
    }
}
