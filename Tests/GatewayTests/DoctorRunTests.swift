import BLELink
import Foundation
import Testing
import TuyaCore

@testable import Gateway

/// The whole doctor with the machine replaced: which checks run, in which order.
@Suite("doctor: the run")
struct DoctorRunTests {
    private func doctor(config: String?, environment: [String: String]) -> Doctor {
        var doctor = Doctor(configurationPath: config, environment: environment)
        doctor.now = { Date(timeIntervalSince1970: 1_790_000_000) }
        doctor.probeBluetooth = { _ throws(BLEUnavailable) in
            throw .kernelWithoutBluetooth(reason: "Address family not supported by protocol")
        }
        doctor.observeBroker = { _ in
            BrokerObservation(connection: .connected, roundTrip: .passed, bridgeState: .nothingRetained)
        }
        doctor.observeAnonymous = { _ in .refused }
        doctor.inspectState = { _ in
            StateDirectoryInspection(directory: .missing, database: .missing, isWritable: true, userID: 1000)
        }
        doctor.loadProfiles = { _ in ProfileLibrary(profiles: [TestProfile.shipped]) }
        doctor.scanLAN = { _ in LANScan(listened: .zero) }
        return doctor
    }

    @Test("every check runs in order when the configuration loads")
    func allChecks() async {
        let checks = await doctor(
            config: nil, environment: ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent"]
        )
        .run()
        #expect(
            checks.map(\.name) == [
                "config", "broker", "topics", "daemon", "access", "ble", "lan", "state", "profiles", "clock",
            ])
        #expect(checks.map(\.status) == [.ok, .ok, .ok, .warn, .ok, .warn, .ok, .warn, .ok, .ok])
    }

    @Test("with the daemon online, doctor adds what it does with the adapter, from its health_check")
    func daemonBLELinks() async {
        var doctor = doctor(config: nil, environment: ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent"])
        doctor.observeBroker = { _ in
            BrokerObservation(
                connection: .connected, roundTrip: .passed, bridgeState: .retained(Array(#"{"state":"online"}"#.utf8)))
        }
        doctor.daemonHealth = { _ in
            .object([
                "healthy": .bool(true),
                "ble": .object([
                    "adapter": .string("hci0"), "limit": .integer(3), "connected": .array([.string("aroma")]),
                    "waiting": .array([]),
                ]),
            ])
        }
        let checks = await doctor.run()
        #expect(
            checks.map(\.name) == [
                "config", "broker", "topics", "daemon", "access", "ble", "ble-links", "lan", "state", "profiles",
                "clock",
            ])
        #expect(
            checks.first { $0.name == "ble-links" }
                == .ok("ble-links", "the daemon holds 1 of 3 connections on hci0 (aroma); none waiting"))
    }

    @Test("a configuration that does not load stops the checks that need it; the clock is still checked")
    func badConfiguration() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-doctor-\(UUID().uuidString).yaml")
        try "ble:\n  enabled: maybe\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let checks = await doctor(config: file.path, environment: ["HOME": "/nonexistent-home"]).run()
        #expect(checks.map(\.name) == ["config", "clock"])
        #expect(checks[0].status == .fail)
        #expect(checks[0].detail.hasPrefix("\(file.path):2: ble.enabled: "))
    }

    @Test("a --config file that does not exist fails the configuration check")
    func missingFile() async {
        let checks = await doctor(config: "/nonexistent/config.yaml", environment: ["HOME": "/nonexistent-home"]).run()
        #expect(checks.first?.status == .fail)
        #expect(checks.first?.detail.contains("no such configuration file") == true)
    }
}
