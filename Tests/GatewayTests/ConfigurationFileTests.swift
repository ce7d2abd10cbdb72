import Testing

@testable import Gateway

@Suite("Configuration file keys")
struct ConfigurationFileTests {
    static let everyKey = """
        mqtt:
          url: mqtts://[::1]:8884
          username: gateway
          password: "p@ss: word"
          ca_file: /etc/youll-devices/ca.pem
          client_cert: /etc/youll-devices/client.pem
          client_key: /etc/youll-devices/client.key
          client_id: gw-kitchen
          keepalive: 1m
        base_topic: home/kitchen
        state_directory: /srv/youll
        profiles:
          installed: /opt/youll/devices
          user: /srv/youll/devices
        ble:
          enabled: off
          adapter: hci1
          max_connections: 5
        home_assistant:
          enabled: false
          prefix: ha/discovery
        metrics:
          enabled: true
          listen: "[::1]:9100"
        log_level: debug
        devices:
          frame_gap: 0ms
          confirmation_timeout: 2500ms
          query_interval: 2h
          reapply_within: 90s
        deep_links:
          universal_link_hosts: [Links.Example.com, youll.app]
        permit_join:
          default_timeout: 4m
        """

    @Test("every key of the file is read into its field")
    func everyKeyParsed() throws {
        let c = try ConfigFixture.parse(Self.everyKey)
        #expect(c.mqtt.broker == GatewayConfiguration.BrokerAddress(usesTLS: true, host: "::1", port: 8884))
        #expect(c.mqtt.username == "gateway" && c.mqtt.password == "p@ss: word")
        #expect(c.mqtt.caFile == "/etc/youll-devices/ca.pem")
        #expect(c.mqtt.clientCertificateFile == "/etc/youll-devices/client.pem")
        #expect(c.mqtt.clientKeyFile == "/etc/youll-devices/client.key")
        #expect(c.mqtt.clientID == "gw-kitchen" && c.effectiveClientID == "gw-kitchen")
        #expect(c.mqtt.keepalive == .seconds(60))
        #expect(c.baseTopic == "home/kitchen")
        #expect(c.stateDirectory == "/srv/youll")
        #expect(c.profiles == .init(installed: "/opt/youll/devices", user: "/srv/youll/devices"))
        #expect(c.ble.mode == .off && c.ble.adapter == "hci1" && c.ble.maxConnections == 5)
        #expect(!c.homeAssistant.enabled && c.homeAssistant.prefix == "ha/discovery")
        #expect(c.metrics.enabled && c.metrics.listen == .init(host: "::1", port: 9100))
        #expect(c.logLevel == .debug)
        #expect(c.devices.frameGap == .zero)
        #expect(c.devices.confirmationTimeout == .milliseconds(2500))
        #expect(c.devices.queryInterval == .seconds(7200))
        #expect(c.devices.reapplyWithin == .seconds(90))
        #expect(GatewayConfiguration.DeviceDefaults().reapplyWithin == .seconds(120))
        #expect(c.universalLinkHosts == ["links.example.com", "youll.app"])
        #expect(c.permitJoinTimeout == .seconds(240))
    }

    @Test("keys the file leaves out keep the defaults it was parsed over")
    func partialFile() throws {
        let c = try ConfigFixture.parse("ble:\n  max_connections: 2\n")
        var expected = ConfigFixture.userDefaults
        expected.ble.maxConnections = 2
        #expect(c == expected)
    }

    @Test("an mqtts URL without a port uses 8883, mqtt 1883")
    func defaultPorts() throws {
        #expect(try ConfigFixture.parse("mqtt:\n  url: mqtts://broker.lan\n").mqtt.broker.port == 8883)
        #expect(try ConfigFixture.parse("mqtt:\n  url: MQTT://broker.lan/\n").mqtt.broker.port == 1883)
    }

    @Test("BLE mode accepts auto and the switch words (on/off, yes/no, true/false)")
    func bleModes() throws {
        #expect(try ConfigFixture.parse("ble:\n  enabled: on\n").ble.mode == .on)
        #expect(try ConfigFixture.parse("ble:\n  enabled: auto\n").ble.mode == .auto)
        #expect(try ConfigFixture.parse("ble:\n  enabled: yes\n").ble.mode == .on)
        #expect(ConfigFixture.error("ble:\n  enabled: sometimes\n")?.keyPath == "ble.enabled")
    }
}
