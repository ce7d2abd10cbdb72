import Foundation
import MQTTLink
import TuyaCore
import TuyaWire
import YoullTestSupport

/// A test's own client on the broker: records every message under the base topic and
/// lets a test wait for the one it expects. Waiting is on real messages from the real
/// daemon, bounded by a timeout that only matters when the daemon misbehaves.
actor BridgeObserver {
    struct Message: Sendable {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
        var json: JSONValue? { try? CompactJSON.decode(payload) }
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    let client: MQTTClient
    private(set) var messages: [Message] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var pump: Task<Void, Never>?

    init(url: String, filter: String = "#") async throws {
        var configuration = try MQTTConfiguration(url: url)
        configuration.clientID = "observer-\(UUID().uuidString.prefix(8))"
        client = try MQTTClient(configuration: configuration)
        let events = client.events
        pump = Task { [weak self] in
            for await event in events {
                if case .message(let message) = event {
                    await self?.record(Message(topic: message.topic, payload: message.payload, retain: message.retain))
                }
            }
        }
        try await client.connect()
        try await client.subscribe(filter)
    }

    private func record(_ message: Message) {
        messages.append(message)
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    private func wakeAll() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Index to pass as `after` to wait only for messages from now on.
    var mark: Int { messages.count }

    /// The first message on `topic` from index `after` on that satisfies `condition`.
    func wait(
        for topic: String, after: Int = 0, timeout: Duration = .seconds(20),
        where condition: @escaping @Sendable (Message) -> Bool = { _ in true }
    ) async throws -> Message {
        do {
            return try await withDeadline(timeout, "a message on \(topic)") {
                try await self.next(on: topic, after: after, where: condition)
            }
        } catch is DeadlineExceeded {
            let seen = messages.suffix(8).map { "\($0.topic) \($0.text.prefix(160))" }.joined(separator: "\n  ")
            throw RigError("no message on \(topic) matching the condition within \(timeout); last messages:\n  \(seen)")
        }
    }

    /// Waits for messages until one matches; a cancelled wait (its deadline passed) ends at once.
    private func next(on topic: String, after: Int, where condition: (Message) -> Bool) async throws -> Message {
        var index = after
        while true {
            while index < messages.count {
                let message = messages[index]
                index += 1
                if message.topic == topic, condition(message) { return message }
            }
            try Task.checkCancellation()
            await withTaskCancellationHandler {
                await withCheckedContinuation { waiters.append($0) }
            } onCancel: {
                Task { await self.wakeAll() }
            }
        }
    }

    func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) async throws {
        try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
    }

    func close() async {
        await client.close()
        pump?.cancel()
    }
}

struct RigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? { objectValue?[key] }
    var string: String? { if case .string(let text) = self { text } else { nil } }
}
