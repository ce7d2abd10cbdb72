import DeviceSimulator
import Foundation
import LocalBroker
import Synchronization
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import Gateway

/// The daemon in this process with LAN discovery configured: a real mosquitto, a real
/// SQLite state directory, a simulated LAN bulb on TCP 6668 of its own loopback address.
@Suite("LAN discovery in the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonLANTests {
    private static let handedOut = Mutex<Set<String>>([])

    /// 127.x.y.1 with x in 1–19: outside the ranges the simulator's and the CLI's LAN tests use.
    static func baseAddress() -> String {
        while true {
            let candidate = "127.\(Int.random(in: 1...19)).\(Int.random(in: 1...250)).1"
            if handedOut.withLock({ $0.insert(candidate).inserted }) { return candidate }
        }
    }

    @Test("a discovery port held by another program does not stop the daemon: it starts, and a LAN bulb pairs by IP")
    func busyPortIsNotFatal() async throws {
        let held = try HeldUDPPort()
        defer { held.close() }
        let broker = try await LocalBroker.started()
        defer { broker.stop() }
        let options = LANSimulatorOptions(
            lights: 1, diffusers: 0, versions: [.v3_4], baseAddress: Self.baseAddress(),
            discoveryPort: try LocalBroker.freeLoopbackPort(),
            plaintextDiscoveryPort: try LocalBroker.freeLoopbackPort(),
            broadcastInterval: nil, seed: UInt64.random(in: 1...1_000_000))
        let fleet = try LANSimulatorFleet(options: options, library: Repository.shippedProfiles)
        try await fleet.start()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-lan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let bulb = try #require(fleet.identities.first)
        do {
            try await withRunningDaemon(
                broker: broker, state: state,
                configure: {
                    $0.lan.bind = "127.0.0.1"
                    $0.lan.discoveryPorts = [held.port]
                }
            ) { daemon in
                let window = try await daemon.client.request(
                    "permit_join", ["value": .bool(true), "time": .integer(5), "transport": .string("lan")],
                    timeout: daemon.timeout)
                #expect(window["lan_candidates"] == .array([]), "nothing heard on a port another program holds")
                #expect(window["ble"] == nil, "a LAN window starts no BLE scan")
                let device = try await daemon.client.request(
                    "device/add",
                    [
                        "id": .string(bulb.devId), "local_key": .string(bulb.localKey), "name": .string("hall"),
                        "transport": .string("lan"), "ip": .string(bulb.ip), "version": .string("3.4"),
                    ], timeout: daemon.timeout)
                #expect(device["friendly_name"] == .string("hall"))
                let set = try await daemon.client.set(
                    device: "hall", payload: ["state": .string("ON")], timeout: daemon.timeout)
                #expect(set["state"]?["state"] == .string("ON"), "\(set)")
                #expect(await fleet.state(of: bulb.devId)?[DataPointID(20)!] == .bool(true))
            }
        } catch {
            await fleet.stop()
            throw error
        }
        await fleet.stop()
    }

    @Test("the log line for a busy discovery port says what happened and both ways out")
    func busyPortAdvice() {
        let line = GatewayDaemon.advice(port: 6667, reason: "in use by another program")
        #expect(line.hasPrefix("UDP 6667 cannot be used: in use by another program"))
        #expect(line.contains("stop the other program listening there"))
        #expect(line.contains("youll-devices pair lan ID --ip ADDRESS --protocol 3.x"))
    }
}
