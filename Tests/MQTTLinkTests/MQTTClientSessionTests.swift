import Foundation
import Synchronization
import Testing
import Timing
import YoullTestSupport

@testable import MQTTLink

/// Integration tests on a real mosquitto: a persistent session's messages, kept by the broker
/// while the client was away, arrive in the same read as the CONNACK of the next connection.
@Suite("MQTT client: messages kept for a persistent session", .serialized, .timeLimit(.minutes(1)))
struct MQTTClientSessionTests {
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

    /// Anyone who can publish on a subscribed topic can send faster than the consumer reads:
    /// what waits to be read is bounded, the rest dropped and counted, and the client keeps
    /// working once its consumer catches up.
    @Test("a flood beyond maximumBufferedMessages is dropped and counted; the first ones are kept in order")
    func floodIsBounded() async throws {
        let broker = try TestBroker()
        let slow = try client(broker) { $0.maximumBufferedMessages = 50 }
        var reader = EventReader(slow)
        let publisher = try client(broker, "flood-publisher")
        try await slow.connect()
        // Read, so only messages wait from here on.
        _ = await reader.next { $0 == .connected }
        try await publisher.connect()
        try await slow.subscribe("flood/#", qos: .atMostOnce)
        for index in 0..<500 {
            try await publisher.publish(topic: "flood/\(index)", payload: [], qos: .atMostOnce)
        }
        // Nobody reads meanwhile: the first 50 wait, the other 450 are dropped as they arrive.
        try await withDeadline(.seconds(20), "the flood to arrive") {
            while slow.droppedMessages < 450 { await Task.yield() }
        }
        #expect(slow.droppedMessages == 450)
        var topics: [String] = []
        while topics.count < 50,
            let message = await reader.next(where: { if case .message = $0 { true } else { false } })
        {
            if case .message(let received) = message { topics.append(received.topic) }
        }
        #expect(topics == (0..<50).map { "flood/\($0)" })
        try await publisher.publish(topic: "flood/after", payload: [1], qos: .atLeastOnce)
        #expect(await reader.message(on: "flood/after")?.payload == [1])
        await publisher.close()
        await slow.close()
    }
}
