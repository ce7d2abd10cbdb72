import Testing

@testable import Gateway

/// A bad configuration is refused at start with the key path, the line and the reason, never a crash.
@Suite("Configuration errors")
struct ConfigurationErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var yaml: String
        var keyPath: String
        var line: Int?
        var reason: String
        var testDescription: String { "\(keyPath): \(reason)" }
    }

    static let cases: [Case] = [
        Case(yaml: "mqtt:\n  urll: mqtt://x\n", keyPath: "mqtt.urll", line: 2, reason: "did you mean 'url'?"),
        Case(
            yaml: "ble:\n  max_conections: 2\n", keyPath: "ble.max_conections", line: 2,
            reason: "did you mean 'max_connections'?"),
        Case(yaml: "base_topik: x\n", keyPath: "base_topik", line: 1, reason: "did you mean 'base_topic'?"),
        Case(yaml: "zzzzzz: 1\n", keyPath: "zzzzzz", line: 1, reason: "unknown key 'zzzzzz'; expected one of"),
        Case(yaml: "mqtt: mqtt://x\n", keyPath: "mqtt", line: 1, reason: "expected a mapping"),
        Case(
            yaml: "ble:\n  max_connections: three\n", keyPath: "ble.max_connections", line: 2,
            reason: "expected a whole number"),
        Case(yaml: "ble:\n  max_connections: 0\n", keyPath: "ble.max_connections", line: 2, reason: "outside 1...16"),
        Case(yaml: "metrics:\n  enabled: 2\n", keyPath: "metrics.enabled", line: 2, reason: "expected on or off"),
        Case(yaml: "base_topic: [a]\n", keyPath: "base_topic", line: 1, reason: "expected a string, found a list"),
        Case(yaml: "mqtt:\n  url: http://x\n", keyPath: "mqtt.url", line: 2, reason: "unsupported scheme 'http'"),
        Case(yaml: "mqtt:\n  url: broker.lan\n", keyPath: "mqtt.url", line: 2, reason: "is not a broker URL"),
        Case(yaml: "mqtt:\n  url: mqtt://:1883\n", keyPath: "mqtt.url", line: 2, reason: "missing host"),
        Case(yaml: "mqtt:\n  url: mqtt://h:70000\n", keyPath: "mqtt.url", line: 2, reason: "outside 1–65535"),
        Case(yaml: "mqtt:\n  url: mqtt://h:0\n", keyPath: "mqtt.url", line: 2, reason: "outside 1–65535"),
        Case(yaml: "mqtt:\n  url: mqtt://h/x\n", keyPath: "mqtt.url", line: 2, reason: "unexpected path"),
        Case(yaml: "base_topic: a/+/b\n", keyPath: "base_topic", line: 1, reason: "wildcard '+'"),
        Case(yaml: "base_topic: a/#\n", keyPath: "base_topic", line: 1, reason: "wildcard '#'"),
        Case(yaml: "base_topic: /youll\n", keyPath: "base_topic", line: 1, reason: "must not start or end with '/'"),
        Case(yaml: "base_topic: youll/\n", keyPath: "base_topic", line: 1, reason: "must not start or end with '/'"),
        Case(yaml: "base_topic: \"\"\n", keyPath: "base_topic", line: 1, reason: "must not be empty"),
        Case(
            yaml: "base_topic: \(String(repeating: "a", count: 129))\n", keyPath: "base_topic", line: 1,
            reason: "at most 128"),
        Case(
            yaml: "devices:\n  confirmation_timeout: 0s\n", keyPath: "devices.confirmation_timeout", line: 2,
            reason: "greater than zero"),
        Case(yaml: "devices:\n  query_interval: -5s\n", keyPath: "devices.query_interval", line: 2, reason: "negative"),
        Case(yaml: "devices:\n  reapply_within: -1m\n", keyPath: "devices.reapply_within", line: 2, reason: "negative"),
        Case(
            yaml: "permit_join:\n  default_timeout: 120\n", keyPath: "permit_join.default_timeout", line: 2,
            reason: "needs a unit"),
        Case(yaml: "mqtt:\n  keepalive: 5500ms\n", keyPath: "mqtt.keepalive", line: 2, reason: "whole seconds"),
        Case(
            yaml: "mqtt:\n  keepalive: 4s\n", keyPath: "mqtt.keepalive", line: 2,
            reason: "shorter than the minimum 5.0 s"),
        Case(
            yaml: "devices:\n  query_interval: 1ms\n", keyPath: "devices.query_interval", line: 2,
            reason: "shorter than the minimum 1.0 s"),
        Case(
            yaml: "permit_join:\n  default_timeout: 500ms\n", keyPath: "permit_join.default_timeout", line: 2,
            reason: "shorter than the minimum 1.0 s"),
        Case(
            yaml: "maintenance:\n  webhook:\n    url: https://x.example.com/\n    retry_initial: 1ms\n",
            keyPath: "maintenance.webhook.retry_initial", line: 4, reason: "shorter than the minimum 0.1 s"),
        Case(yaml: "state_directory: var/lib\n", keyPath: "state_directory", line: 1, reason: "not an absolute path"),
        Case(yaml: "log_level: verbose\n", keyPath: "log_level", line: 1, reason: "unknown log level 'verbose'"),
        Case(yaml: "ble:\n  adapter: usb0\n", keyPath: "ble.adapter", line: 2, reason: "such as hci0"),
        Case(yaml: "metrics:\n  listen: 9464\n", keyPath: "metrics.listen", line: 2, reason: "expected host:port"),
        Case(
            yaml: "deep_links:\n  universal_link_hosts: [https://a.com]\n",
            keyPath: "deep_links.universal_link_hosts[0]", line: 2, reason: "host name only"),
        Case(
            yaml: "deep_links:\n  universal_link_hosts: [a.com, A.com]\n",
            keyPath: "deep_links.universal_link_hosts[1]", line: 2, reason: "listed twice"),
        Case(yaml: "mqtt:\n  ca_file: /etc/ca.pem\n", keyPath: "mqtt.ca_file", line: 2, reason: "plain TCP"),
        Case(
            yaml: "mqtt:\n  url: mqtts://h\n  client_cert: /c.pem\n", keyPath: "mqtt.client_cert", line: 3,
            reason: "set both or neither"),
    ]

    @Test("each bad value is refused with its key path, line and reason", arguments: cases)
    func refused(_ bad: Case) throws {
        let error = try #require(ConfigFixture.error(bad.yaml))
        #expect(error.source == "config.yaml")
        #expect(error.keyPath == bad.keyPath)
        #expect(error.line == bad.line)
        #expect(error.reason.contains(bad.reason), "\(error)")
        #expect(error.variable == nil)
    }

    @Test("the description reads like a compiler diagnostic")
    func diagnosticFormat() throws {
        let error = try #require(ConfigFixture.error("ble:\n  max_connections: 99\n"))
        #expect("\(error)" == "config.yaml:2: ble.max_connections: connection count 99 is outside 1...16")
    }

    @Test("a CA file the gateway cannot read is refused at load, with its line")
    func unreadableCAFile() {
        let yaml = "mqtt:\n  url: mqtts://h\n  ca_file: /etc/youll-devices/ca.pem\n"
        let files = FakeFiles.access(["/c.yaml": yaml])
        #expect {
            try ConfigurationLoader.load(path: "/c.yaml", environment: [:], isService: false, files: files)
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.keyPath == "mqtt.ca_file" && error?.line == 3
                && error?.reason.contains("cannot read the CA file '/etc/youll-devices/ca.pem'") == true
        }
        let readable = FakeFiles.access(["/c.yaml": yaml], readable: ["/etc/youll-devices/ca.pem"])
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(path: "/c.yaml", environment: [:], isService: false, files: readable)
        }
    }

    @Test("the password never appears in a description, a mirror or an error")
    func passwordRedacted() throws {
        let secret = "hunter2-SECRET"
        let c = try ConfigFixture.parse("mqtt:\n  username: gw\n  password: \(secret)\n")
        #expect(c.mqtt.password == secret)
        var dumped = ""
        dump(c, to: &dumped)
        for text in ["\(c)", String(reflecting: c), "\(c.mqtt)", dumped, "\(c.mqttLinkConfiguration())"] {
            #expect(!text.contains(secret), "\(text)")
        }
        #expect("\(c.mqtt)".contains("gw:***@"))
        let errors = [
            ConfigFixture.error("mqtt:\n  url: mqtt://gw:\(secret)@h\n"),
            ConfigFixture.error("mqtt:\n  url: mqtt://gw:\(secret)@h:99999\n"),
            ConfigFixture.error("mqtt:\n  url: ftp://gw:\(secret)@h\n"),
            ConfigFixture.error("mqtt:\n  password: \(secret)\n"),
            ConfigFixture.error("mqtt:\n  password: [\(secret)]\n"),
            ConfigFixture.error(environment: ["YOULL_MQTT_URL": "mqtt://gw:\(secret)@h"]),
            ConfigFixture.error(environment: ["YOULL_MQTT_PASSWORD": secret]),
        ]
        for error in errors {
            let error = try #require(error)
            #expect(!"\(error)".contains(secret), "\(error)")
        }
    }

    @Test("a password holding '#', '/', '?' or '@' never appears in an error, in part or whole")
    func passwordWithURLDelimiters() throws {
        for secret in ["s3cr#et", "s3cr/et", "s3cr?et", "s3cr@et", "s3cr/et#x?y"] {
            let errors = [
                ConfigFixture.error("mqtt:\n  url: 'mqtt://gw:\(secret)@h'\n"),
                ConfigFixture.error(environment: ["YOULL_MQTT_URL": "mqtt://gw:\(secret)@h:1883"]),
                ConfigFixture.error(environment: ["YOULL_MQTT_URL": "mqtt://gw:\(secret)@h:1883/path"]),
            ]
            for error in errors {
                let text = "\(try #require(error))"
                for part in [secret, "s3cr", String(secret.dropFirst(4))] {
                    #expect(!text.contains(part), "\(secret): \(text)")
                }
                #expect(text.contains("gw:***@h"), "\(text)")
            }
        }
    }
}
