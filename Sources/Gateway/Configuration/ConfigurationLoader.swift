import Foundation

/// Builds the `GatewayConfiguration` for `youll-devices serve [--config PATH]`, in layers:
/// documented defaults → the YAML file → `YOULL_*` environment variables. A bad value in any
/// layer stops the start with a `ConfigurationError` naming the key path (or variable), the
/// line when known, and the reason.
///
/// File search: the explicit `--config` path (must exist), else `/etc/youll-devices/config.yaml`,
/// else `$XDG_CONFIG_HOME/youll-devices/config.yaml` (`~/.config/…`); with none of them the
/// defaults apply. `parse(yaml:source:defaults:)` and `apply(environment:to:)` are pure; only
/// `load` touches the file system (to read the file and to check that TLS files are readable).
public enum ConfigurationLoader {
    public static let systemConfigurationFile = "/etc/youll-devices/config.yaml"
    /// A configuration is a few kilobytes; anything past this is refused before parsing.
    public static let maximumSize = 64 * 1024

    /// Loads the configuration the gateway starts with.
    /// - Parameters:
    ///   - path: `--config`; when given, the file must exist.
    ///   - environment: usually `ProcessInfo.processInfo.environment`.
    ///   - isService: running under systemd (see `isService(environment:)`); picks the state directory.
    public static func load(
        path: String?, environment: [String: String], isService: Bool
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var environment = environment
        if environment["HOME", default: ""].isEmpty {
            environment["HOME"] = FileManager.default.homeDirectoryForCurrentUser.path
        }
        return try load(path: path, environment: environment, isService: isService, files: .system)
    }

    static func load(
        path: String?, environment: [String: String], isService: Bool, files: FileAccess
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var draft = ConfigurationDraft(configuration: defaults(environment: environment, isService: isService))
        if let file = try configurationFile(explicit: path, environment: environment, files: files) {
            let text: String
            do {
                text = try files.read(file, maximumSize)
            } catch {
                throw ConfigurationError(source: file, reason: error.reason)
            }
            try draft.parse(yaml: text, source: file)
        }
        try draft.apply(environment: environment)
        try draft.validate()
        try draft.checkFiles(files)
        return draft.configuration
    }

    /// The file `load` reads: the explicit path, or the first existing default location, or nil.
    static func configurationFile(
        explicit: String?, environment: [String: String], files: FileAccess
    ) throws(ConfigurationError) -> String? {
        if let explicit {
            guard files.exists(explicit) else {
                throw ConfigurationError(
                    source: explicit, reason: "no such configuration file (given with --config)")
            }
            return explicit
        }
        return searchPaths(environment: environment).first(where: files.exists)
    }

    /// Where a configuration is looked for when `--config` is not given, in order.
    public static func searchPaths(environment: [String: String]) -> [String] {
        [systemConfigurationFile, configHome(environment) + "/youll-devices/config.yaml"]
    }

    /// True under systemd: `$INVOCATION_ID` is set for every unit, `$STATE_DIRECTORY` by `StateDirectory=`.
    public static func isService(environment: [String: String]) -> Bool {
        !environment["INVOCATION_ID", default: ""].isEmpty || !environment["STATE_DIRECTORY", default: ""].isEmpty
    }

    /// The documented defaults. State: `$STATE_DIRECTORY` (systemd's, first entry), else
    /// `/var/lib/youll-devices` for a service, else `$XDG_STATE_HOME/youll-devices` or
    /// `~/.local/state/youll-devices`. User profiles: `/etc/youll-devices/devices` for a service,
    /// else `$XDG_CONFIG_HOME/youll-devices/devices`.
    public static func defaults(environment: [String: String], isService: Bool) -> GatewayConfiguration {
        let stateDirectory: String
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, systemd.hasPrefix("/") {
            stateDirectory = String(systemd)
        } else if isService {
            stateDirectory = "/var/lib/youll-devices"
        } else {
            stateDirectory = xdgDirectory(environment, "XDG_STATE_HOME", fallback: ".local/state") + "/youll-devices"
        }
        let userProfiles =
            isService ? "/etc/youll-devices/devices" : configHome(environment) + "/youll-devices/devices"
        return GatewayConfiguration(
            stateDirectory: stateDirectory,
            profiles: .init(installed: "/usr/share/youll-devices/devices", user: userProfiles))
    }

    /// Reads one YAML document over `defaults`; keys the file leaves out keep their default.
    public static func parse(
        yaml: String, source: String, defaults: GatewayConfiguration
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var draft = ConfigurationDraft(configuration: defaults)
        try draft.parse(yaml: yaml, source: source)
        try draft.validate()
        return draft.configuration
    }

    /// Applies the `YOULL_*` variables (see `environmentVariables`) over `configuration`.
    /// Empty variables count as unset.
    public static func apply(
        environment: [String: String], to configuration: GatewayConfiguration
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var draft = ConfigurationDraft(configuration: configuration)
        try draft.apply(environment: environment)
        try draft.validate()
        return draft.configuration
    }

    private static func configHome(_ environment: [String: String]) -> String {
        xdgDirectory(environment, "XDG_CONFIG_HOME", fallback: ".config")
    }

    /// XDG base directories must be absolute; a relative value is ignored, as the specification says.
    private static func xdgDirectory(_ environment: [String: String], _ variable: String, fallback: String) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        return (home.hasSuffix("/") ? home : home + "/") + fallback
    }
}

/// The configuration being built, with where each value came from.
struct ConfigurationDraft {
    var configuration: GatewayConfiguration
    /// Key path (`mqtt.ca_file`) → where it was last set.
    var origins: [String: ConfigurationOrigin] = [:]

    func error(_ keyPath: String, _ reason: String) -> ConfigurationError {
        (origins[keyPath] ?? ConfigurationOrigin(source: "defaults")).error(keyPath, reason)
    }

    /// Checks that span keys, after every layer is in.
    func validate() throws(ConfigurationError) {
        let mqtt = configuration.mqtt
        let tlsFiles: [(key: String, value: String?)] = [
            ("mqtt.ca_file", mqtt.caFile), ("mqtt.client_cert", mqtt.clientCertificateFile),
            ("mqtt.client_key", mqtt.clientKeyFile),
        ]
        for (key, value) in tlsFiles where value != nil && !mqtt.broker.usesTLS {
            throw error(key, "TLS file set, but mqtt.url \(mqtt.broker) is plain TCP; use an mqtts:// URL")
        }
        if (mqtt.clientCertificateFile == nil) != (mqtt.clientKeyFile == nil) {
            let key = mqtt.clientCertificateFile == nil ? "mqtt.client_key" : "mqtt.client_cert"
            throw error(key, "mqtt.client_cert and mqtt.client_key go together; set both or neither")
        }
        if mqtt.password != nil, mqtt.username == nil {
            throw error("mqtt.password", "a password needs mqtt.username (or YOULL_MQTT_USERNAME)")
        }
        guard mqtt.keepalive.components.attoseconds == 0 else {
            throw error("mqtt.keepalive", "keepalive must be whole seconds")
        }
    }

    /// The TLS files must be readable by the gateway's user now, not at the first reconnect.
    func checkFiles(_ files: FileAccess) throws(ConfigurationError) {
        let mqtt = configuration.mqtt
        let checks: [(key: String, path: String?, what: String)] = [
            ("mqtt.ca_file", mqtt.caFile, "CA file"),
            ("mqtt.client_cert", mqtt.clientCertificateFile, "client certificate"),
            ("mqtt.client_key", mqtt.clientKeyFile, "client key"),
        ]
        for check in checks {
            guard let path = check.path, !files.isReadable(path) else { continue }
            throw error(check.key, "cannot read the \(check.what) '\(path)': missing or not readable by this user")
        }
    }
}
