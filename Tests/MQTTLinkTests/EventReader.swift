import MQTTLink
import Timing

/// Reads one client's `events` until an event matches. No timers: if the expected event never
/// comes, the stream ends on `close()` or the suite's time limit fails the test.
struct EventReader {
    private var iterator: Mailbox<MQTTEvent>.Iterator

    init(_ client: MQTTClient) {
        iterator = client.events.makeAsyncIterator()
    }

    mutating func next(where matches: (MQTTEvent) -> Bool) async -> MQTTEvent? {
        while let event = await iterator.next() {
            if matches(event) { return event }
        }
        return nil
    }

    mutating func message(on topic: String) async -> MQTTMessage? {
        let event = await next {
            if case .message(let message) = $0 { message.topic == topic } else { false }
        }
        if case .message(let message)? = event { return message }
        return nil
    }

    mutating func disconnected() async -> MQTTDisconnectReason? {
        if case .disconnected(let reason)? = await next(where: {
            if case .disconnected = $0 { true } else { false }
        }) {
            return reason
        }
        return nil
    }

    mutating func connected() async -> Bool {
        await next(where: { $0 == .connected }) != nil
    }

    /// True once the stream has finished (the client is closed).
    mutating func finished() async -> Bool {
        while await iterator.next() != nil {}
        return true
    }
}
