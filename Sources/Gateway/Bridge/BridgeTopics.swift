/// The topics of the bridge API under one base topic (README "The MQTT bridge API").
public struct BridgeTopics: Hashable, Sendable {
    public let base: String

    public init(base: String) {
        self.base = base
    }

    public var state: String { base + "/bridge/state" }
    public var info: String { base + "/bridge/info" }
    public var devices: String { base + "/bridge/devices" }
    public var event: String { base + "/bridge/event" }
    public var requestFilter: String { base + "/bridge/request/#" }
    public var setFilter: String { base + "/+/set" }
    public var getFilter: String { base + "/+/get" }
    public func request(_ verb: String) -> String { base + "/bridge/request/" + verb }
    public func response(_ verb: String) -> String { base + "/bridge/response/" + verb }
    public func device(_ name: String) -> String { base + "/" + name }
    public func availability(_ name: String) -> String { base + "/" + name + "/availability" }
    /// `<base>/<name>/maintenance`: the device's reminders, retained.
    public func maintenance(_ name: String) -> String { base + "/" + name + "/maintenance" }
    public func set(_ name: String) -> String { base + "/" + name + "/set" }

    /// Every retained topic named after a device: a rename moves all of them and a removal
    /// clears all of them, so a topic added here is never left behind under an old name.
    public func retainedDeviceTopics(_ name: String) -> [String] {
        [device(name), availability(name), maintenance(name)]
    }
    public func get(_ name: String) -> String { base + "/" + name + "/get" }

    /// What an incoming message on the bridge's subscriptions asks for.
    public enum Incoming: Hashable, Sendable {
        case request(verb: String)
        case set(device: String)
        case get(device: String)
    }

    /// Classifies a topic received on `requestFilter`, `setFilter` or `getFilter`; nil for
    /// anything else (including `<base>/bridge/set`, which names no device).
    public func classify(_ topic: String) -> Incoming? {
        guard topic.hasPrefix(base + "/") else { return nil }
        let rest = topic.dropFirst(base.count + 1)
        if rest.hasPrefix("bridge/request/") {
            return .request(verb: String(rest.dropFirst("bridge/request/".count)))
        }
        let levels = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 2, !levels[0].isEmpty, levels[0] != "bridge" else { return nil }
        switch levels[1] {
        case "set": return .set(device: String(levels[0]))
        case "get": return .get(device: String(levels[0]))
        default: return nil
        }
    }
}
