import BLELink
import Foundation
import Storage
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

@testable import Gateway

/// `ble.transport`: read from the file, refused with the key path and reason, and checked by
/// `doctor` in one line.
@Suite("ble.transport")
struct BLETransportConfigurationTests {
    @Test("the default is BlueZ; the file can name the gateway's own HCI host on any stream")
    func parses() throws {
        #expect(ConfigFixture.userDefaults.ble.transport == .bluez)
        let tcp = try ConfigFixture.parse("ble:\n  transport: h4-tcp:127.0.0.1:9000\n")
        #expect(tcp.ble.transport == .h4TCP(host: "127.0.0.1", port: 9000))
        #expect(tcp.description.contains("ble: auto on h4-tcp:127.0.0.1:9000"))
        let serial = try ConfigFixture.parse("ble:\n  transport: h4:/dev/ttyAMA0,921600\n")
        #expect(serial.ble.transport == .h4Serial(path: "/dev/ttyAMA0", baudRate: 921_600))
        #expect(
            try ConfigFixture.parse("ble:\n  transport: hci-user:hci1\n").ble.transport == .hciUser(adapter: "hci1"))
    }

    @Test("a wrong transport is refused at its line, naming what is wrong")
    func refused() throws {
        let error = try #require(ConfigFixture.error("ble:\n  enabled: on\n  transport: h4-tcp:localhost\n"))
        #expect(error.keyPath == "ble.transport" && error.line == 3)
        #expect(error.reason.contains("h4-tcp: expected HOST:PORT"))
        let unknown = try #require(ConfigFixture.error("ble:\n  transport: usb\n"))
        #expect(unknown.reason.contains("expected one of: bluez | hci-user:hci0"))
    }

    @Test("doctor: an answering controller, a failing transport under auto and on, a daemon holding it")
    func doctorVerdicts() {
        var ble = GatewayConfiguration.BLE()
        ble.transport = .h4TCP(host: "127.0.0.1", port: 9000)
        let info = HCIControllerInfo(
            address: "00:1B:DC:0F:00:01", aclBuffers: HCIBufferSize(dataPacketLength: 27, totalPackets: 8),
            features: .extendedAdvertising)
        #expect(
            DoctorCheck.hciTransport(ble, opened: .success(info))
                == .ok(
                    "ble",
                    "controller 00:1B:DC:0F:00:01 on h4-tcp:127.0.0.1:9000 answers: 8 LE buffers of 27 bytes, "
                        + "extended scanning"))
        let refused = HCIHostError.transport("h4-tcp:127.0.0.1:9000: connection refused: is the controller listening?")
        let warned = DoctorCheck.hciTransport(ble, opened: .failure(refused))
        #expect(warned.status == .warn && warned.detail.hasPrefix("h4-tcp:127.0.0.1:9000: connection refused"))
        ble.mode = .on
        let failed = DoctorCheck.hciTransport(ble, opened: .failure(refused))
        #expect(failed.status == .fail && failed.detail.contains("the daemon will not start"))
        #expect(DoctorCheck.hciTransport(ble, opened: nil).status == .ok)
    }

    @Test("doctor opens the configured transport instead of probing BlueZ")
    func doctorRun() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hci-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.yaml").path
        try "ble:\n  transport: h4-unix:/nonexistent/bt.sock\n".write(toFile: config, atomically: true, encoding: .utf8)
        var doctor = Doctor(configurationPath: config, environment: ["HOME": directory.path])
        doctor.probeBluetooth = { _ throws(BLEUnavailable) in throw .noAdapter("hci0") }
        doctor.observeBroker = { _ in
            BrokerObservation(connection: .connected, roundTrip: .passed, bridgeState: .nothingRetained)
        }
        let checks = await doctor.run()
        let ble = try #require(checks.first { $0.name == "ble" })
        #expect(ble.status == .warn)
        #expect(ble.detail.hasPrefix("h4-unix:/nonexistent/bt.sock: no such socket"), "\(ble.detail)")
    }

    @Test("doctor does not open the controller a daemon holds when the broker is down, and says it is held")
    func doctorLeavesAHeldController() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hci-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state")
        let config = directory.appendingPathComponent("config.yaml").path
        try "state_directory: \(state.path)\nble:\n  transport: h4:/dev/ttyAMA0\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        #expect(!GatewayDatabase.isDaemonRunning(in: state))
        #expect(!FileManager.default.fileExists(atPath: state.path), "asking creates nothing")
        let lock = try GatewayDatabase.acquireDaemonLock(in: state)
        #expect(GatewayDatabase.isDaemonRunning(in: state))
        var doctor = Doctor(configurationPath: config, environment: ["HOME": directory.path])
        let opened = Mutex(0)
        doctor.openController = { _ in
            opened.withLock { $0 += 1 }
            return .failure(.transport("opened"))
        }
        doctor.observeBroker = { _ in BrokerObservation(connection: .noAnswer(.seconds(5))) }
        let checks = await doctor.run()
        let ble = try #require(checks.first { $0.name == "ble" })
        #expect(opened.withLock { $0 } == 0, "the daemon's controller was opened again")
        #expect(ble.detail.contains("held by the running daemon"), "\(ble.detail)")
        withExtendedLifetime(lock) {}
    }
}
