import Foundation
import Testing

@testable import Gateway

@Suite("Configuration defaults and file search")
struct ConfigurationDefaultsTests {
    @Test("with no file and no environment the documented defaults apply")
    func defaultsWithNothing() throws {
        let configuration = try ConfigurationLoader.load(
            path: nil, environment: ["HOME": "/home/ada"], isService: false, files: FakeFiles.access([:]))
        #expect(configuration.mqtt.broker.description == "mqtt://127.0.0.1:1883")
        #expect(configuration.mqtt.username == nil && configuration.mqtt.password == nil)
        #expect(configuration.mqtt.keepalive == .seconds(30))
        #expect(configuration.baseTopic == "youll")
        #expect(configuration.effectiveClientID == "youll-devices-youll")
        #expect(configuration.stateDirectory == "/home/ada/.local/state/youll-devices")
        #expect(configuration.profiles.installed == "/usr/share/youll-devices/devices")
        #expect(configuration.profiles.user == "/home/ada/.config/youll-devices/devices")
        #expect(configuration.ble.mode == .auto && configuration.ble.adapter == "hci0")
        #expect(configuration.ble.maxConnections == 3)
        #expect(configuration.homeAssistant.enabled && configuration.homeAssistant.prefix == "homeassistant")
        #expect(configuration.metrics.enabled && configuration.metrics.listen.description == "127.0.0.1:9464")
        #expect(configuration.logLevel == .info)
        #expect(configuration.devices.frameGap == .milliseconds(300))
        #expect(configuration.devices.confirmationTimeout == .seconds(5))
        #expect(configuration.devices.queryInterval == .seconds(60))
        #expect(configuration.universalLinkHosts.isEmpty)
        #expect(configuration.permitJoinTimeout == .seconds(120))
    }

    @Test("a service keeps its state in /var/lib/youll-devices and its profiles in /etc")
    func serviceDirectories() {
        let environment = ["INVOCATION_ID": "0123abcd", "HOME": "/root"]
        #expect(ConfigurationLoader.isService(environment: environment))
        let configuration = ConfigurationLoader.defaults(environment: environment, isService: true)
        #expect(configuration.stateDirectory == "/var/lib/youll-devices")
        #expect(configuration.profiles.user == "/etc/youll-devices/devices")
    }

    @Test("systemd's STATE_DIRECTORY is honoured and marks a service")
    func systemdStateDirectory() {
        let environment = ["STATE_DIRECTORY": "/var/lib/youll-gw:/var/lib/other"]
        #expect(ConfigurationLoader.isService(environment: environment))
        #expect(
            ConfigurationLoader.defaults(environment: environment, isService: true).stateDirectory
                == "/var/lib/youll-gw")
    }

    @Test("a user session follows XDG_STATE_HOME and XDG_CONFIG_HOME, ignoring relative values")
    func userDirectories() {
        let xdg = ["HOME": "/home/ada", "XDG_STATE_HOME": "/data/state", "XDG_CONFIG_HOME": "/data/config"]
        #expect(!ConfigurationLoader.isService(environment: xdg))
        let configuration = ConfigurationLoader.defaults(environment: xdg, isService: false)
        #expect(configuration.stateDirectory == "/data/state/youll-devices")
        #expect(configuration.profiles.user == "/data/config/youll-devices/devices")
        #expect(ConfigurationLoader.searchPaths(environment: xdg).last == "/data/config/youll-devices/config.yaml")
        let relative = ["HOME": "/home/ada", "XDG_STATE_HOME": "state"]
        #expect(
            ConfigurationLoader.defaults(environment: relative, isService: false).stateDirectory
                == "/home/ada/.local/state/youll-devices")
    }

    @Test(
        "a FIFO given as the configuration is refused at once, not waited on; a symbolic link to a file is read",
        .timeLimit(.minutes(1)))
    func fifoIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("youll-config-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("real.yaml")
        try "base_topic: linked\n".write(to: file, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("config.yaml")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let linked = try ConfigurationLoader.load(path: link.path, environment: ["HOME": "/home/ada"], isService: false)
        #expect(linked.baseTopic == "linked")
        let path = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        #expect {
            try ConfigurationLoader.load(path: path, environment: ["HOME": "/home/ada"], isService: false)
        } throws: { error in
            "\(error)".contains("\(path)") && "\(error)".contains("is not a regular file")
        }
    }

    @Test("/etc/youll-devices/config.yaml is read before the user's file")
    func searchOrder() throws {
        let user = "/home/ada/.config/youll-devices/config.yaml"
        let both = FakeFiles.access([
            "/etc/youll-devices/config.yaml": "base_topic: system\n", user: "base_topic: user\n",
        ])
        let environment = ["HOME": "/home/ada"]
        #expect(
            try ConfigurationLoader.load(path: nil, environment: environment, isService: false, files: both).baseTopic
                == "system")
        let userOnly = FakeFiles.access([user: "base_topic: user\n"])
        #expect(
            try ConfigurationLoader.load(path: nil, environment: environment, isService: false, files: userOnly)
                .baseTopic
                == "user")
        let explicit = FakeFiles.access(["/srv/gw.yaml": "base_topic: explicit\n", user: "base_topic: user\n"])
        #expect(
            try ConfigurationLoader.load(
                path: "/srv/gw.yaml", environment: environment, isService: false, files: explicit
            )
            .baseTopic == "explicit")
    }

    @Test("an explicit --config path that does not exist is refused")
    func missingExplicitFile() {
        #expect {
            try ConfigurationLoader.load(
                path: "/srv/none.yaml", environment: [:], isService: false, files: FakeFiles.access([:]))
        } throws: { error in
            "\(error)" == "/srv/none.yaml: no such configuration file (given with --config)"
        }
    }

    @Test("an empty or comment-only file leaves the defaults")
    func emptyFile() throws {
        #expect(try ConfigFixture.parse("") == ConfigFixture.userDefaults)
        #expect(try ConfigFixture.parse("# nothing yet\n") == ConfigFixture.userDefaults)
        #expect(try ConfigFixture.parse("mqtt:\nble: ~\n") == ConfigFixture.userDefaults)
    }

    @Test("the example configuration loads and differs from the defaults only where it says so")
    func exampleConfiguration() throws {
        let example = ConfigFixture.exampleYAML
        #expect(!example.isEmpty)
        let configuration = try ConfigFixture.parse(example)
        var expected = ConfigFixture.userDefaults
        expected.mqtt.username = "gateway"
        expected.metrics.enabled = true
        expected.universalLinkHosts = ["links.example.com"]
        #expect(configuration == expected)
    }

    @Test("the link configuration carries broker, credentials, TLS files and a stable client id")
    func linkConfiguration() throws {
        let configuration = try ConfigFixture.parse(
            """
            base_topic: home/one
            mqtt:
              url: mqtts://broker.example.net
              username: gw
              password: s3cret
              ca_file: /etc/ca.pem
            """)
        let link = configuration.mqttLinkConfiguration()
        #expect(link.host == "broker.example.net" && link.port == 8883)
        #expect(link.tls?.caFile == "/etc/ca.pem")
        #expect(link.clientID == "youll-devices-home-one")
        #expect(link.username == "gw" && link.password == "s3cret")
    }
}
