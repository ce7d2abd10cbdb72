import YoullTestSupport
import DeviceSimulator
import Foundation
import LocalBroker
import MQTTLink
import Testing
import TuyaController
import TuyaCore

// Real parts: LocalBroker mosquitto (TLS + password listener, plain listener), SimulatorFleet devices, TuyaController over MQTTDeviceBus.
@Suite("TuyaController over TLS with a password")
struct BrokerTLSTests {
    static let username = "gateway"
    static let password = "s3cret pass"

    /// A broker whose main listener wants TLS (certificates made here) and a password, with a
    /// plain anonymous listener for the simulated devices, which speak plain MQTT.
    static func withSecureBroker<T: Sendable>(_ body: (LocalBroker, String, SimulatorFleet) async throws -> T)
        async throws -> T
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("youll-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try makeCertificates(in: directory)
        let broker = try await LocalBroker.started(
            credentials: .init(username: username, password: password), tls: files, plainListener: true)
        defer { broker.stop() }
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 5), library: BrokerRig.library,
            broker: BrokerRig.swarm(url: #require(broker.plainURL)))
        try await fleet.start()
        defer { fleet.stop() }
        guard await fleet.waitUntilConnected(timeout: .seconds(10)) else { throw RigFailure("devices did not connect") }
        return try await body(broker, files.caFile, fleet)
    }

    @Test("the controller connects with TLS and a password and pairs a device")
    func pairsOverTLS() async throws {
        try await Self.withSecureBroker { broker, caFile, fleet in
            let url = "mqtts://\(Self.username):s3cret%20pass@127.0.0.1:\(broker.port)"
            let bus = try MQTTDeviceBus(configuration: BrokerRig.mqtt(url: url, tls: .init(caFile: caFile)))
            let controller = TuyaController(
                bus: bus, library: BrokerRig.library, configuration: BrokerRig.configuration { _ in })
            try await controller.start()
            do {
                let light = try #require(fleet.identities.first)
                let outcome = try await controller.pair(devId: light.devId, localKey: light.localKey)
                let id = try #require(DeviceID(light.devId))
                #expect(outcome.pairedProfileID == "rgbcct-bulb-v2")
                let state = try await controller.send(.light(LightCommand(countdown: 42)), to: id)
                #expect(try BrokerRig.light(state).countdown == 42)
                #expect(await fleet.state(of: light.devId)?[DataPointID(26)!] == .value(42))
            } catch {
                await controller.stop()
                throw error
            }
            await controller.stop()
        }
    }

    @Test("a wrong password makes start fail with not authorised, naming the user")
    func wrongPassword() async throws {
        try await Self.withSecureBroker { broker, caFile, _ in
            let url = "mqtts://\(Self.username):wrong@127.0.0.1:\(broker.port)"
            let bus = try MQTTDeviceBus(configuration: BrokerRig.mqtt(url: url, tls: .init(caFile: caFile)))
            let controller = TuyaController(bus: bus, library: BrokerRig.library)
            let error = await #expect(throws: MQTTError.self) {
                // Generous: it fails as soon as the broker refuses, but the TLS handshake shares
                // two cores with the whole suite (10 s ran out once under load).
                try await withDeadline(30, "start to fail") { try await controller.start() }
            }
            #expect(error == .notAuthorised(username: Self.username))
            #expect(error?.description.contains("not authorised") == true)
            #expect(error?.description.contains(Self.username) == true)
            #expect(error?.description.contains("wrong") == false)
            // It is left stopped, not half running.
            await #expect(throws: PairingError.notRunning) {
                try await controller.pair(devId: "bf0000000000000000aaaa", localKey: "0123456789abcdef")
            }
        }
    }

    /// A throwaway CA and a server certificate for 127.0.0.1, made with the openssl CLI.
    static func makeCertificates(in directory: URL) throws -> LocalBroker.TLSFiles {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=youll broker test CA",
            ])
        try openssl(
            ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(
            toFile: path("san.ext"), atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-out", path("server.crt"), "-days", "2", "-extfile", path("san.ext"),
        ])
        return LocalBroker.TLSFiles(caFile: path("ca.crt"), certFile: path("server.crt"), keyFile: path("server.key"))
    }

    static func openssl(_ arguments: [String]) throws {
        try LocalBroker.run("/usr/bin/openssl", arguments)
    }
}
