import Foundation

/// The environment layer: `YOULL_*` variables override the file, for containers and systemd
/// drop-ins. Values go through the same checks as the file's; errors name the variable.
extension ConfigurationLoader {
    /// Every variable the loader reads, with the key it overrides, in documentation order.
    public static let environmentVariables: [(variable: String, keyPath: String)] =
        ConfigurationDraft.overrides.map { ($0.variable, $0.keyPath) }
}

extension ConfigurationDraft {
    typealias Override = (
        variable: String, keyPath: String,
        apply: @Sendable (String, inout GatewayConfiguration) throws(InvalidValue) -> Void
    )

    static let overrides: [Override] = [
        (
            "YOULL_MQTT_URL", "mqtt.url",
            { text, c throws(InvalidValue) in
                c.mqtt.broker = try ConfigurationValue.brokerAddress(text)
            }
        ),
        ("YOULL_MQTT_USERNAME", "mqtt.username", { text, c throws(InvalidValue) in c.mqtt.username = text }),
        ("YOULL_MQTT_PASSWORD", "mqtt.password", { text, c throws(InvalidValue) in c.mqtt.password = text }),
        (
            "YOULL_MQTT_CA_FILE", "mqtt.ca_file",
            { text, c throws(InvalidValue) in
                c.mqtt.caFile = try ConfigurationValue.absolutePath(text)
            }
        ),
        (
            "YOULL_MQTT_CLIENT_ID", "mqtt.client_id",
            { text, c throws(InvalidValue) in
                c.mqtt.clientID = try ConfigurationValue.clientID(text)
            }
        ),
        (
            "YOULL_BASE_TOPIC", "base_topic",
            { text, c throws(InvalidValue) in
                c.baseTopic = try ConfigurationValue.baseTopic(text)
            }
        ),
        (
            "YOULL_STATE_DIR", "state_directory",
            { text, c throws(InvalidValue) in
                c.stateDirectory = try ConfigurationValue.absolutePath(text)
            }
        ),
        (
            "YOULL_PROFILES_DIR", "profiles.user",
            { text, c throws(InvalidValue) in
                c.profiles.user = try ConfigurationValue.absolutePath(text)
            }
        ),
        (
            "YOULL_BLE", "ble.enabled",
            { text, c throws(InvalidValue) in c.ble.mode = try ConfigurationValue.bleMode(text) }
        ),
        (
            "YOULL_BLE_ADAPTER", "ble.adapter",
            { text, c throws(InvalidValue) in
                c.ble.adapter = try ConfigurationValue.bluetoothAdapter(text)
            }
        ),
        (
            "YOULL_LAN", "lan.enabled",
            { text, c throws(InvalidValue) in
                c.lan.enabled = try requiredSwitch(text)
            }
        ),
        (
            "YOULL_BRIDGE_AUTH", "bridge.auth",
            { text, c throws(InvalidValue) in c.bridge.auth = try requiredSwitch(text) }
        ),
        (
            "YOULL_BRIDGE_ACCEPT_CLEAR_KEYS", "bridge.accept_clear_keys",
            { text, c throws(InvalidValue) in c.bridge.acceptClearKeys = try requiredSwitch(text) }
        ),
        (
            "YOULL_BRIDGE_TOKEN_FILE", "bridge.token_file",
            { text, c throws(InvalidValue) in c.bridge.tokenFile = try ConfigurationValue.absolutePath(text) }
        ),
        (
            "YOULL_HOME_ASSISTANT", "home_assistant.enabled",
            { text, c throws(InvalidValue) in
                c.homeAssistant.enabled = try requiredSwitch(text)
            }
        ),
        (
            "YOULL_METRICS", "metrics",
            { text, c throws(InvalidValue) in
                if let flag = switchValue(text) {
                    c.metrics.enabled = flag
                } else {
                    c.metrics.listen = try ConfigurationValue.listenAddress(text)
                    c.metrics.enabled = true
                }
            }
        ),
        (
            "YOULL_LOG_LEVEL", "log_level",
            { text, c throws(InvalidValue) in
                c.logLevel = try ConfigurationValue.choice(
                    text.lowercased(), as: GatewayConfiguration.LogLevel.self, what: "log level")
            }
        ),
        (
            "YOULL_UNIVERSAL_LINK_HOSTS", "deep_links.universal_link_hosts",
            { text, c throws(InvalidValue) in
                var hosts: [String] = []
                for item in text.split(separator: ",") {
                    let host = try ConfigurationValue.hostName(item.trimmingCharacters(in: .whitespaces))
                    if !hosts.contains(host) { hosts.append(host) }
                }
                c.universalLinkHosts = hosts
            }
        ),
    ]

    mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        for override in Self.overrides {
            guard let text = environment[override.variable], !text.isEmpty else { continue }
            let origin = ConfigurationOrigin.environment(override.variable)
            do {
                try override.apply(text, &configuration)
            } catch {
                throw origin.error(override.keyPath, error.reason)
            }
            origins[override.keyPath] = origin
        }
    }

    /// `on`/`off` and their usual spellings, the same in the file and the environment.
    static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: nil
        }
    }

    static func requiredSwitch(_ text: String) throws(InvalidValue) -> Bool {
        guard let value = switchValue(text) else {
            throw InvalidValue("expected on or off (true/false, yes/no, 1/0), found '\(text.prefix(40))'")
        }
        return value
    }
}
