import Foundation
import Gateway
import Synchronization
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

/// Hands each message of `stream` to `body` until it returns false, `duration` passes (what
/// arrived before then is still handed over), or the stream ends (the connection was lost:
/// an error). At most `backlog` messages wait for a slow `body` (a terminal printing a
/// flood): beyond, the oldest are dropped, and `onDropped` is told how many before the next
/// message is handed over, or before the loop ends.
func forEach(
    _ stream: AsyncStream<BridgeMessage>, for duration: Duration?, backlog: Int = BridgeClient.listenerBuffer,
    onDropped: (Int) -> Void = { _ in }, _ body: (BridgeMessage) throws -> Bool
) async throws {
    enum Tick: Sendable {
        /// The message numbered from 0 in the order the pump took them: a gap is what was dropped.
        case message(BridgeMessage, number: Int)
        /// Look at `flags`: time is up, or the stream ended (kept there, not in the bounded
        /// stream, where a flood could push them out).
        case flagged
    }
    let flags = LoopFlags()
    let (ticks, sink) = AsyncStream.makeStream(of: Tick.self, bufferingPolicy: .bufferingNewest(max(1, backlog)))
    let pump = Task {
        for await message in stream {
            sink.yield(.message(message, number: flags.taken.add(1, ordering: .relaxed).oldValue))
        }
        flags.ended.store(true, ordering: .releasing)
        sink.yield(.flagged)
    }
    let timer = duration.map { duration in
        Task {
            try await ContinuousClock().sleep(for: duration)
            flags.deadline.store(flags.taken.load(ordering: .relaxed), ordering: .relaxed)
            flags.timeUp.store(true, ordering: .releasing)
            sink.yield(.flagged)
        }
    }
    defer {
        pump.cancel()
        timer?.cancel()
    }
    var expected = 0
    func dropped(before number: Int) {
        if number > expected { onDropped(number - expected) }
        expected = max(expected, number)
    }
    for await tick in ticks {
        let timeUp = flags.timeUp.load(ordering: .acquiring)
        switch tick {
        case .message(let message, let number):
            // Taken by the pump after the time was up.
            if timeUp, number >= flags.deadline.load(ordering: .relaxed) { return }
            dropped(before: number)
            expected = number + 1
            guard try body(message) else { return }
        case .flagged:
            if timeUp {
                dropped(before: flags.deadline.load(ordering: .relaxed))
                return
            }
            guard flags.ended.load(ordering: .acquiring) else { continue }
            dropped(before: flags.taken.load(ordering: .relaxed))
            throw ConnectionLost()
        }
    }
}

/// What `forEach`'s pump and timer tell its loop beside the bounded stream.
private final class LoopFlags: Sendable {
    /// Messages the pump took from the stream so far.
    let taken = Atomic<Int>(0)
    let ended = Atomic<Bool>(false)
    /// `taken` when the time was up: the messages numbered below it came before.
    let deadline = Atomic<Int>(0)
    let timeUp = Atomic<Bool>(false)
}
