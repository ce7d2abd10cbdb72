import Testing

@testable import Gateway

@Suite("Configuration environment overrides")
struct ConfigurationEnvironmentTests {
    @Test("environment variables win over the file")
    func environmentWins() throws {
        let file = "base_topic: from-file\nmqtt:\n  url: mqtt://file.lan\n  username: file\nble:\n  enabled: on\n"
        let environment = [
            "HOME": "/home/ada",
            "YOULL_MQTT_URL": "mqtts://env.lan:8884", "YOULL_MQTT_USERNAME": "env", "YOULL_MQTT_PASSWORD": "pw",
            "YOULL_MQTT_CA_FILE": "/ca.pem", "YOULL_MQTT_CLIENT_ID": "gw-1", "YOULL_BASE_TOPIC": "from-env",
            "YOULL_STATE_DIR": "/srv/state", "YOULL_PROFILES_DIR": "/srv/profiles", "YOULL_BLE": "off",
            "YOULL_BLE_ADAPTER": "hci2", "YOULL_HOME_ASSISTANT": "no", "YOULL_METRICS": "0.0.0.0:9500",
            "YOULL_LOG_LEVEL": "DEBUG", "YOULL_UNIVERSAL_LINK_HOSTS": "a.example.com, b.example.com",
            "YOULL_BRIDGE_AUTH": "off", "YOULL_BRIDGE_ACCEPT_CLEAR_KEYS": "yes",
            "YOULL_BRIDGE_TOKEN_FILE": "/srv/token",
        ]
        let files = FakeFiles.access(["/c.yaml": file], readable: ["/ca.pem"])
        let c = try ConfigurationLoader.load(path: "/c.yaml", environment: environment, isService: false, files: files)
        #expect(c.mqtt.broker.description == "mqtts://env.lan:8884")
        #expect(c.mqtt.username == "env" && c.mqtt.password == "pw" && c.mqtt.caFile == "/ca.pem")
        #expect(c.mqtt.clientID == "gw-1")
        #expect(c.baseTopic == "from-env")
        #expect(c.stateDirectory == "/srv/state" && c.profiles.user == "/srv/profiles")
        #expect(c.ble.mode == .off && c.ble.adapter == "hci2")
        #expect(!c.homeAssistant.enabled)
        #expect(c.metrics.enabled && c.metrics.listen.description == "0.0.0.0:9500")
        #expect(c.logLevel == .debug)
        #expect(c.universalLinkHosts == ["a.example.com", "b.example.com"])
        #expect(!c.bridge.auth && c.bridge.acceptClearKeys && c.effectiveTokenFile == "/srv/token")
        #expect(ConfigurationLoader.environmentVariables.count == 18)
    }

    @Test("the bridge section: signing on and clear keys refused by default, the token in the state directory")
    func bridgeSection() throws {
        let defaults = try ConfigFixture.parse("state_directory: /srv/state\n")
        #expect(defaults.bridge.auth && !defaults.bridge.acceptClearKeys)
        #expect(defaults.effectiveTokenFile == "/srv/state/bridge-token")
        let file = try ConfigFixture.parse("bridge:\n  auth: off\n  accept_clear_keys: on\n  token_file: /etc/t\n")
        #expect(!file.bridge.auth && file.bridge.acceptClearKeys && file.effectiveTokenFile == "/etc/t")
        #expect(throws: ConfigurationError.self) { try ConfigFixture.parse("bridge:\n  token_file: relative\n") }
        #expect(throws: ConfigurationError.self) { try ConfigFixture.parse("bridge:\n  auth: maybe\n") }
    }

    @Test("empty variables are ignored and YOULL_METRICS also takes on and off")
    func emptyAndSwitches() throws {
        let c = try ConfigurationLoader.apply(
            environment: ["YOULL_BASE_TOPIC": "", "YOULL_METRICS": "on", "YOULL_BLE": "auto"],
            to: ConfigFixture.userDefaults)
        #expect(c.baseTopic == "youll" && c.metrics.enabled && c.metrics.listen.port == 9464 && c.ble.mode == .auto)
    }

    @Test("the file's state directory beats systemd's, YOULL_STATE_DIR beats both")
    func stateDirectoryPrecedence() throws {
        let service = ["STATE_DIRECTORY": "/var/lib/gw"]
        let files = FakeFiles.access(["/c.yaml": "state_directory: /srv/file\n"])
        let fromFile = try ConfigurationLoader.load(
            path: "/c.yaml", environment: service, isService: true, files: files)
        #expect(fromFile.stateDirectory == "/srv/file")
        let fromEnvironment = try ConfigurationLoader.load(
            path: "/c.yaml", environment: service.merging(["YOULL_STATE_DIR": "/srv/env"]) { $1 }, isService: true,
            files: files)
        #expect(fromEnvironment.stateDirectory == "/srv/env")
    }

    @Test(
        "a bad variable is refused naming the variable and the key",
        arguments: [
            ("YOULL_MQTT_URL", "mqtt://h:0", "mqtt.url", "outside 1–65535"),
            ("YOULL_BASE_TOPIC", "a/#", "base_topic", "wildcard"),
            ("YOULL_BLE", "maybe", "ble.enabled", "unknown BLE mode 'maybe'"),
            ("YOULL_LOG_LEVEL", "warn", "log_level", "did you mean 'warning'?"),
            ("YOULL_METRICS", "lots", "metrics", "expected host:port"),
            ("YOULL_HOME_ASSISTANT", "sure", "home_assistant.enabled", "expected on or off"),
            ("YOULL_STATE_DIR", "state", "state_directory", "absolute path"),
            ("YOULL_MQTT_CA_FILE", "/ca.pem", "mqtt.ca_file", "plain TCP"),
            ("YOULL_MQTT_PASSWORD", "pw", "mqtt.password", "needs mqtt.username"),
        ])
    func refused(variable: String, value: String, keyPath: String, reason: String) throws {
        let error = try #require(ConfigFixture.error(environment: [variable: value]))
        #expect(error.variable == variable && error.keyPath == keyPath)
        #expect(error.reason.contains(reason), "\(error)")
        #expect("\(error)".hasPrefix("environment \(variable) (\(keyPath)): "))
    }
}
