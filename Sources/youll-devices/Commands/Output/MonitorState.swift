import Gateway
import TuyaCore

/// What `monitor` last saw of each device's state, so a change prints only what changed:
/// `{"brightness":25}` instead of the whole state. Retained states seen at the start are
/// the baseline even when they are not printed. Pure.
struct MonitorState {
    private var last: [String: [String: JSONValue]] = [:]

    /// The fields of `message` (a state object) that differ from the topic's previous state,
    /// with `null` for a field that went away; nil when there is nothing to compare with
    /// (the first state of a topic, or a payload that is not an object), which prints whole.
    mutating func changes(_ message: BridgeMessage) -> JSONValue? {
        guard let object = message.json?.objectValue else {
            if message.payload.isEmpty { last[message.topic] = nil }
            return nil
        }
        defer { last[message.topic] = object }
        guard let previous = last[message.topic] else { return nil }
        var changed: [String: JSONValue] = [:]
        for (key, value) in object where previous[key] != value { changed[key] = value }
        for key in previous.keys where object[key] == nil { changed[key] = .null }
        return .object(changed)
    }
}
