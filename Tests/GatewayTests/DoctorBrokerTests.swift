import Foundation
import LocalBroker
import MQTTLink
import Testing
import YoullTestSupport

@testable import Gateway

/// Real parts: a private mosquitto (LocalBroker) per test, reached by BrokerProbe through MQTTLink.
@Suite("doctor: broker probe")
struct DoctorBrokerTests {
    private func configuration(port: Int, username: String? = nil, password: String? = nil) -> GatewayConfiguration {
        var configuration = ConfigFixture.userDefaults
        configuration.mqtt.broker = .init(usesTLS: false, host: "127.0.0.1", port: port)
        configuration.mqtt.username = username
        configuration.mqtt.password = password
        return configuration
    }

    @Test("an open broker is reachable, the round trip passes, and no daemon state is retained")
    func openBroker() async throws {
        let broker = try await LocalBroker.started()
        // Generous per-step time: the whole suite runs beside it on two cores.
        let observation = await BrokerProbe(gateway: configuration(port: broker.port), timeout: .seconds(30)).observe()
        #expect(
            observation == BrokerObservation(connection: .connected, roundTrip: .passed, bridgeState: .nothingRetained))
    }

    @Test("the daemon's retained online state is read, and the daemon's own session is not disturbed")
    func daemonOnline() async throws {
        let broker = try await LocalBroker.started()
        let gateway = configuration(port: broker.port)
        // Stands in for the daemon: its client id, its last will, its retained state.
        let daemon = try MQTTClient(configuration: gateway.mqttLinkConfiguration())
        try await daemon.connect()
        try await daemon.publish(topic: "youll/bridge/state", payload: Array(#"{"state":"online"}"#.utf8), retain: true)
        let observation = await BrokerProbe(gateway: gateway, timeout: .seconds(30)).observe()
        #expect(observation.bridgeState == .retained(Array(#"{"state":"online"}"#.utf8)))
        let checks = DoctorCheck.broker(observation, broker: broker.url, user: nil, baseTopic: "youll")
        #expect(checks.map(\.status) == [.ok, .ok, .ok])
        // Had the probe used the daemon's client id, the broker would have dropped the daemon.
        try await daemon.publish(topic: "youll/bridge/doctor-test", payload: [1])
        await daemon.close()
    }

    @Test("a wrong password is 'not authorised', naming the user and never the password")
    func wrongPassword() async throws {
        let broker = try await LocalBroker.started(credentials: .init(username: "ada", password: "right-horse-battery"))
        let gateway = configuration(port: broker.port, username: "ada", password: "wrong-staple-99")
        let observation = await BrokerProbe(gateway: gateway, timeout: .seconds(30)).observe()
        #expect(observation.connection == .failed(.notAuthorised(username: "ada")))
        let check = try #require(
            DoctorCheck.broker(observation, broker: gateway.mqtt.broker.description, user: "ada", baseTopic: "youll")
                .only)
        #expect(check.status == .fail)
        #expect(!"\(check)".contains("wrong-staple-99"))
        #expect(check.fix?.contains("mqtt.password") == true)

        let right = await BrokerProbe(
            gateway: configuration(port: broker.port, username: "ada", password: "right-horse-battery"),
            timeout: .seconds(30)
        )
        .observe()
        #expect(right.connection == .connected)
    }

    @Test("an ACL that hides the base topic is a warning, and the daemon's state is not guessed")
    func aclRefuses() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("youll-acl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let acl = directory.appendingPathComponent("acl").path
        // mosquitto 2.0 grants an MQTT 3.1.1 subscription its ACL denies and then delivers nothing.
        try "user ada\ntopic write youll/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let broker = try await LocalBroker.started(
            credentials: .init(username: "ada", password: "pw-1234"), extraConfiguration: ["acl_file \(acl)"])
        let clock = ManualClock()
        // The echo's wait is on the manual clock; connecting and the SUBACK are waited for in
        // real time, as generously as the other tests here (the whole suite runs beside it on
        // two cores, and 5 s once ran out before mosquitto's SUBACK in CI's run).
        let probe = BrokerProbe(
            gateway: configuration(port: broker.port, username: "ada", password: "pw-1234"), timeout: .seconds(30),
            clock: clock)
        async let observed = probe.observe()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        let observation = await observed
        #expect(
            observation
                == BrokerObservation(
                    connection: .connected, roundTrip: .noEcho(.seconds(30)), bridgeState: .nothingRetained))
        let checks = DoctorCheck.broker(observation, broker: broker.url, user: "ada", baseTopic: "youll")
        #expect(checks.map(\.status) == [.ok, .warn, .warn])
        #expect(checks[1].fix == "allow this user readwrite on youll/# in the broker's ACL")
        #expect(checks[2].detail.hasPrefix("cannot tell whether the daemon is running"))
    }

    @Test("an open broker lets anonymous clients write bridge requests: doctor warns and says how to close it")
    func anonymousWrites() async throws {
        let broker = try await LocalBroker.started()
        // Generous: the whole test suite runs beside it on two cores.
        let access = await BrokerProbe(gateway: configuration(port: broker.port), timeout: .seconds(30))
            .observeAnonymousAccess()
        #expect(access == .accepted(writesRequests: true))
        let check = DoctorCheck.anonymousAccess(try #require(access), baseTopic: "youll")
        #expect(check.status == .warn)
        #expect(check.detail.contains("youll/bridge/request/#"))
        #expect(check.fix?.contains("allow_anonymous false") == true)
    }

    @Test("a broker with a password file refuses anonymous clients: doctor says so")
    func anonymousRefused() async throws {
        let broker = try await LocalBroker.started(credentials: .init(username: "ada", password: "pw-1234"))
        let access = await BrokerProbe(
            gateway: configuration(port: broker.port, username: "ada", password: "pw-1234"), timeout: .seconds(30)
        )
        .observeAnonymousAccess()
        #expect(access == .refused)
        #expect(DoctorCheck.anonymousAccess(.refused, baseTopic: "youll").status == .ok)
    }

    @Test("a closed port is 'connection refused'")
    func closedPort() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        // Refused at once; the bound only matters on a machine too loaded to say so in 5 s.
        let observation = await BrokerProbe(gateway: configuration(port: port), timeout: .seconds(30)).observe()
        #expect(observation.connection == .failed(.connectionRefused(host: "127.0.0.1", port: port)))
    }
}
