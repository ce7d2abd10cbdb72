/// Why the gateway refused its configuration at start, and where the bad value came from.
///
/// A value comes either from the YAML file (then `source` is its path and `line` is known)
/// or from an environment variable (then `variable` names it). `description` reads like a
/// compiler diagnostic: `/etc/youll-devices/config.yaml:4: mqtt.url: port 70000 is outside 1–65535`
/// or `environment YOULL_BLE (ble.enabled): unknown BLE mode 'maybe'; expected one of: auto, on, off`.
/// No case ever carries the MQTT password.
public struct ConfigurationError: Error, CustomStringConvertible, Hashable, Sendable {
    /// The configuration file, or `environment` for a variable.
    public var source: String
    /// Dotted key path in the file's terms (`mqtt.url`, `ble.max_connections`); empty when the
    /// problem concerns the whole file.
    public var keyPath: String
    /// 1-based line of the offending node, when known.
    public var line: Int?
    /// The environment variable that supplied the value, when one did.
    public var variable: String?
    /// What is wrong and, where it helps, how to fix it.
    public var reason: String

    public init(source: String, keyPath: String = "", line: Int? = nil, variable: String? = nil, reason: String) {
        self.source = source
        self.keyPath = keyPath
        self.line = line
        self.variable = variable
        self.reason = reason
    }

    public var description: String {
        if let variable {
            return "environment \(variable)" + (keyPath.isEmpty ? "" : " (\(keyPath))") + ": " + reason
        }
        var text = source
        if let line { text += ":\(line)" }
        text += ": "
        if !keyPath.isEmpty { text += "\(keyPath): " }
        return text + reason
    }
}

/// Where a configuration value was set, kept so that checks across keys (a CA file with a plain
/// `mqtt://` URL) and checks on the file system can still point at the line or variable.
struct ConfigurationOrigin: Hashable, Sendable {
    var source: String
    var line: Int?
    var variable: String?

    static func environment(_ variable: String) -> ConfigurationOrigin {
        ConfigurationOrigin(source: "environment", line: nil, variable: variable)
    }

    func error(_ keyPath: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(source: source, keyPath: keyPath, line: line, variable: variable, reason: reason)
    }
}
