import Foundation
import Gateway
import TuyaCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `monitor` (and `pair permit`) print one bridge message.
enum MonitorLine {
    /// `12:30:05.123  lamp          state         {"brightness":40,"state":"ON"}`: local
    /// time, the device (or `bridge`), what the message is, and its payload.
    /// `changes` replaces a state's payload with what changed since the previous one (see
    /// `MonitorState`); nil prints the payload whole.
    static func human(
        _ message: BridgeMessage, baseTopic: String, at date: Date, terminal: Terminal, changes: JSONValue? = nil
    ) -> String {
        let relative =
            message.topic.hasPrefix(baseTopic + "/")
            ? String(message.topic.dropFirst(baseTopic.count + 1)) : message.topic
        let subject: String
        let kind: String
        let detail: String
        var colour: Terminal.Colour?
        if relative == "bridge/event", let event = message.json, let type = event["type"]?.stringValue,
            type == "maintenance_alert", let alert = event["data"]?["alert"]?.objectValue
        {
            // `aroma  maintenance  refill due: Refill the water tank`, in the columns.
            subject = alert["friendly_name"]?.stringValue ?? alert["device"]?.stringValue ?? "bridge"
            kind = "maintenance"
            let state = (alert["state"]?.stringValue ?? "").replacingOccurrences(of: "_", with: " ")
            detail =
                "\(alert["type"]?.stringValue ?? "?") \(state): \(alert["title"]?.stringValue ?? "")"
                + (alert["deeplink"]?.stringValue.map { "  \($0)" } ?? "")
            colour = .yellow
        } else if relative == "bridge/event", let event = message.json, let type = event["type"]?.stringValue {
            subject = "bridge"
            kind = type
            detail = event["data"].map(BridgeJSON.text) ?? ""
            colour = type.hasSuffix("failed") || type == "fault_raised" ? .red : .yellow
        } else if message.payload.isEmpty {
            // A retained topic was cleared (a device removed or renamed): said, not a blank value.
            subject = relative.hasSuffix("/availability") ? String(relative.dropLast("/availability".count)) : relative
            kind = "cleared"
            detail = "the retained value was removed"
            colour = .dim
        } else if relative.hasSuffix("/availability") {
            subject = String(relative.dropLast("/availability".count))
            kind = "availability"
            detail = message.availability ?? payloadText(message)
            colour = Terminal.colour(forStatus: detail)
        } else {
            subject = relative
            kind = "state"
            detail = changes.map(BridgeJSON.text) ?? payloadText(message)
        }
        let name = BridgeText.printable(subject, maximumLength: 64)
        let paddedName = name + String(repeating: " ", count: max(0, 16 - name.count))
        let paddedKind = kind + String(repeating: " ", count: max(0, 14 - kind.count))
        return terminal.paint(Timestamp.localTime(date), .dim) + "  " + paddedName + "  "
            + terminal.paint(BridgeText.printable(paddedKind, maximumLength: 40), colour) + "  "
            + BridgeText.printable(detail, maximumLength: 2000)
    }

    /// `{"time":"2025-05-01T10:30:05.123Z","topic":"youll/lamp","payload":{…}}`; a payload
    /// that is not JSON is given as a string.
    static func json(_ message: BridgeMessage, at date: Date) -> JSONValue {
        var fields: [String: JSONValue] = [
            "time": .string(Timestamp.iso8601(date)), "topic": .string(message.topic),
            "payload": message.json ?? .string(String(decoding: message.payload, as: UTF8.self)),
        ]
        if message.retained { fields["retained"] = .bool(true) }
        return .object(fields)
    }

    private static func payloadText(_ message: BridgeMessage) -> String {
        message.json.map(BridgeJSON.text) ?? String(decoding: message.payload, as: UTF8.self)
    }
}

/// Times for output, without Foundation formatters (which are not `Sendable`).
enum Timestamp {
    /// `HH:mm:ss.SSS` in local time.
    static func localTime(_ date: Date) -> String {
        let (parts, milliseconds) = broken(date, local: true)
        return String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, milliseconds)
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC.
    static func iso8601(_ date: Date) -> String {
        let (parts, milliseconds) = broken(date, local: false)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, milliseconds)
    }

    private static func broken(_ date: Date, local: Bool) -> (tm, Int32) {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = Int32(((interval - interval.rounded(.down)) * 1000).rounded(.down))
        var parts = tm()
        if local { localtime_r(&seconds, &parts) } else { gmtime_r(&seconds, &parts) }
        return (parts, milliseconds)
    }
}

/// Pushes what was printed so far: `monitor` into a pipe must not sit in a buffer.
func flushStandardOutput() {
    fflush(nil)
}

/// A subscription ended: the connection to the broker is gone.
struct ConnectionLost: Error, CustomStringConvertible {
    var description: String { "lost the connection to the broker" }
}

/// Hands each message of `stream` to `body` until it returns false, `duration` passes, or
/// the stream ends (the connection was lost: an error).
func forEach(
    _ stream: AsyncStream<BridgeMessage>, for duration: Duration?, _ body: (BridgeMessage) throws -> Bool
) async throws {
    enum Tick: Sendable {
        case message(BridgeMessage)
        case timeUp
        case ended
    }
    let (ticks, sink) = AsyncStream.makeStream(of: Tick.self)
    let pump = Task {
        for await message in stream { sink.yield(.message(message)) }
        sink.yield(.ended)
    }
    let timer = duration.map { duration in
        Task {
            try await ContinuousClock().sleep(for: duration)
            sink.yield(.timeUp)
        }
    }
    defer {
        pump.cancel()
        timer?.cancel()
    }
    for await tick in ticks {
        switch tick {
        case .message(let message):
            guard try body(message) else { return }
        case .timeUp:
            return
        case .ended:
            throw ConnectionLost()
        }
    }
}
