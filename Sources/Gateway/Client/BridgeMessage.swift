import TuyaCore

/// A message received on a bridge topic, with its payload read as JSON when it is JSON.
public struct BridgeMessage: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    /// Sent by the broker on subscribe (a stored value), not published just now.
    public var retained: Bool

    public init(topic: String, payload: [UInt8], retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }

    /// The payload as JSON, or `nil` when it is not JSON.
    public var json: JSONValue? { try? BridgeJSON.decode(payload) }

    /// The payload as JSON, or the reason it is not, naming the topic.
    public func decoded() throws(BridgeClientError) -> JSONValue {
        do {
            return try BridgeJSON.decode(payload)
        } catch {
            throw .malformedPayload(topic: topic, reason: "not JSON (\(BridgeText.printable(error.description)))")
        }
    }

    /// `{"state":"online"}` (or the bare word, as older bridges publish it) → `online`.
    public var availability: String? {
        switch json {
        case .object(let members)?: members["state"]?.stringValue
        case .string(let word)?: word
        default: String(validatingUTF8Payload: payload)
        }
    }
}

extension String {
    /// A short payload that is plain UTF-8 without spaces (`online`), else `nil`.
    init?(validatingUTF8Payload payload: [UInt8]) {
        guard !payload.isEmpty, payload.count <= 32, let text = String(validating: payload, as: UTF8.self),
            text.allSatisfy({ $0.isLetter })
        else { return nil }
        self = text
    }
}

/// MQTT topic filter matching (`+` one level, `#` the rest), for routing received messages
/// to the waits that asked for them.
public enum TopicFilter {
    public static func matches(_ filter: String, _ topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return true }
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
        }
        return filterLevels.count == topicLevels.count
    }
}
