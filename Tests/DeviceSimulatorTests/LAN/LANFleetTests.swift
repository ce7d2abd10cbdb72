import DeviceSimulator
import Foundation
import LocalBroker
import Synchronization
import Testing
import TuyaCore
import TuyaWire

/// A fleet on loopback addresses of its own: a random 127.x.y.1 base per test, TCP 6668 as
/// on a real network, discovery ports picked free. Nothing here collides with a suite
/// running beside it.
enum LANFleetFixture {
    /// 127.x.y.1 with x and y random: never the same twice in this process, and another
    /// test process picks the same one about once in 57,000 (then binding fails loudly).
    /// Room for 500 devices after it.
    static func baseAddress() -> String {
        while true {
            let candidate = "127.\(Int.random(in: 20...250)).\(Int.random(in: 1...250)).1"
            if handedOut.withLock({ $0.insert(candidate).inserted }) { return candidate }
        }
    }

    private static let handedOut = Mutex<Set<String>>([])

    static func options(
        lights: Int = 3, diffusers: Int = 0, versions: [LANProtocolVersion] = [.v3_3, .v3_4, .v3_5],
        discoveryPort: Int? = nil, broadcastInterval: Duration? = nil, solicitationPort: Int? = nil,
        replyPort: Int = 7000
    ) throws -> LANSimulatorOptions {
        LANSimulatorOptions(
            lights: lights, diffusers: diffusers, versions: versions, baseAddress: baseAddress(),
            discoveryPort: try discoveryPort ?? LocalBroker.freeLoopbackPort(),
            plaintextDiscoveryPort: try LocalBroker.freeLoopbackPort(), broadcastInterval: broadcastInterval,
            solicitationAddress: solicitationPort == nil ? nil : "127.255.255.255",
            solicitationPort: solicitationPort ?? 7000, solicitationReplyPort: replyPort,
            seed: UInt64.random(in: 1...1_000_000), behaviour: DeviceBehaviour(reportDelay: .milliseconds(5)))
    }

    /// Runs `body` with a started fleet and always stops it.
    static func withFleet(
        _ options: LANSimulatorOptions, _ body: (LANSimulatorFleet) async throws -> Void
    ) async throws {
        let fleet = try LANSimulatorFleet(options: options, library: Fixture.library)
        do {
            try await fleet.start()
            try await body(fleet)
        } catch {
            await fleet.stop()
            throw error
        }
        await fleet.stop()
    }
}

/// Real parts: SwiftNIO listeners on 127.x.y.z:6668 and UDP broadcasts on loopback, our
/// client session over plain sockets.
@Suite("Simulated LAN devices on loopback")
struct LANFleetTests {
    @Test("every device listens on TCP 6668 at its own address and confirms a CONTROL, on 3.3, 3.4 and 3.5")
    func controlOverTCP() async throws {
        try await LANFleetFixture.withFleet(try LANFleetFixture.options()) { fleet in
            #expect(Set(fleet.identities.map(\.ip)).count == 3)
            for entry in fleet.identities {
                let client = try LANTestClient(
                    ip: entry.ip, port: 6668, version: entry.version, localKey: entry.localKey)
                try client.send(
                    .control(version: entry.version, devId: entry.devId, dps: ["22": .integer(640)], timestamp: 1))
                #expect(try client.next().command == entry.version.controlCommand, "\(entry.version)")
                let push = try client.next()
                #expect(push.command == .status)
                #expect(try LANDataPoints.dps(in: push.payload) == ["22": .integer(640)], "\(entry.version)")
                #expect(await fleet.state(of: entry.devId)?[dp(22)] == .value(640))
            }
        }
    }

    @Test("a second connection is closed at once while the first is held, and the first keeps working")
    func secondConnectionRefused() async throws {
        try await LANFleetFixture.withFleet(try LANFleetFixture.options(lights: 1, versions: [.v3_4])) { fleet in
            let entry = try #require(fleet.identities.first)
            let first = try LANTestClient(ip: entry.ip, port: 6668, version: .v3_4, localKey: entry.localKey)
            let second = try LANTestSocket.connect(to: entry.ip, port: 6668)
            #expect(try second.receive() == nil, "the device closes the second connection")
            #expect(await fleet.lanStatistics(of: entry.devId)?.connectionsRefused == 1)
            try first.send(.heartbeat(devId: entry.devId))
            #expect(try first.next().command == .heartBeat)
        }
    }

    @Test("garbage from a client ends that connection only; the device serves the next client")
    func hostileClient() async throws {
        try await LANFleetFixture.withFleet(try LANFleetFixture.options(lights: 1, versions: [.v3_3])) { fleet in
            let entry = try #require(fleet.identities.first)
            let rogue = try LANTestSocket.connect(to: entry.ip, port: 6668)
            try rogue.send(Array("GET / HTTP/1.1\r\nHost: bulb\r\n\r\n".utf8) + [UInt8](repeating: 0xFF, count: 200))
            #expect(try rogue.receive() == nil, "the device hangs up on garbage")
            #expect(await fleet.waitUntil(entry.devId, timeout: .seconds(30)) { !$0.isConnected })
            let client = try LANTestClient(ip: entry.ip, port: 6668, version: .v3_3, localKey: entry.localKey)
            try client.send(.query(version: .v3_3, devId: entry.devId, timestamp: 1))
            #expect(try client.next().command == .dpQuery)
        }
    }

    @Test("each device announces itself from its own address to the discovery port, in its version's form")
    func broadcasts() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        let listener = try LANTestSocket.udp(bindTo: "127.255.255.255", port: port)
        try await LANFleetFixture.withFleet(try LANFleetFixture.options(discoveryPort: port)) { fleet in
            var seen: [String: LANBroadcast] = [:]
            while seen.count < 3 {
                let (bytes, source) = try listener.receiveDatagram()
                guard case .announcement(let broadcast, let format) = try LANDiscovery.decode(bytes) else { continue }
                #expect(broadcast.ip == source)
                #expect(format == LANDiscovery.Format(version: try #require(broadcast.protocolVersion)))
                seen[broadcast.gwId] = broadcast
            }
            for entry in fleet.identities {
                #expect(seen[entry.devId]?.ip == entry.ip)
                #expect(seen[entry.devId]?.version == entry.version.rawValue)
            }
        }
    }

    @Test("a device that moves to a new address listens and announces there, and no longer at the old one")
    func movesToNewAddress() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        let listener = try LANTestSocket.udp(bindTo: "127.255.255.255", port: port)
        let options = try LANFleetFixture.options(lights: 1, versions: [.v3_5], discoveryPort: port)
        try await LANFleetFixture.withFleet(options) { fleet in
            let entry = try #require(fleet.identities.first)
            _ = try listener.receiveDatagram()
            let newIP = try #require(LoopbackAddress(entry.ip)?.advanced(by: 7)).description
            await fleet.move(entry.devId, to: newIP)
            #expect(await fleet.address(of: entry.devId) == newIP)
            let (bytes, source) = try listener.receiveDatagram()
            #expect(source == newIP)
            guard case .announcement(let broadcast, _) = try LANDiscovery.decode(bytes) else {
                Issue.record("not an announcement")
                return
            }
            #expect(broadcast.ip == newIP)
            #expect(throws: LANTestSocket.Failure.self) { _ = try LANTestSocket.connect(to: entry.ip, port: 6668) }
            let client = try LANTestClient(ip: newIP, port: 6668, version: .v3_5, localKey: entry.localKey)
            try client.send(.query(version: .v3_5, devId: entry.devId, timestamp: 1))
            #expect(try client.next().command == .dpQueryNew)
        }
    }

    @Test("an offline device drops its client and refuses connections until it comes back")
    func offlineAndBack() async throws {
        try await LANFleetFixture.withFleet(try LANFleetFixture.options(lights: 1, versions: [.v3_3])) { fleet in
            let entry = try #require(fleet.identities.first)
            let client = try LANTestClient(ip: entry.ip, port: 6668, version: .v3_3, localKey: entry.localKey)
            await fleet.goOffline(entry.devId)
            #expect(try client.socket.receive() == nil)
            #expect(throws: LANTestSocket.Failure.self) { _ = try LANTestSocket.connect(to: entry.ip, port: 6668) }
            await fleet.comeOnline(entry.devId)
            let again = try LANTestClient(ip: entry.ip, port: 6668, version: .v3_3, localKey: entry.localKey)
            try again.send(.heartbeat(devId: entry.devId))
            #expect(try again.next().command == .heartBeat)
        }
    }

    @Test("3.5 devices answer a solicitation with their announcement, unicast to the address it names")
    func solicitation() async throws {
        let solicitationPort = try LocalBroker.freeLoopbackPort()
        let replyPort = try LocalBroker.freeLoopbackPort()
        let answers = try LANTestSocket.udp(bindTo: "127.0.0.1", port: replyPort)
        let options = try LANFleetFixture.options(solicitationPort: solicitationPort, replyPort: replyPort)
        try await LANFleetFixture.withFleet(options) { fleet in
            let sender = try LANTestSocket.udp(bindTo: "127.0.0.1", port: 0)
            let datagram = try LANSolicitation(ip: "127.0.0.1").encode(nonce: [UInt8](repeating: 9, count: 12))
            try sender.send(datagram, to: "127.255.255.255", port: solicitationPort)
            let (bytes, source) = try answers.receiveDatagram()
            let v35 = try #require(fleet.identities.first { $0.version == .v3_5 })
            #expect(source == v35.ip)
            #expect(try LANDiscovery.decode(bytes) == .announcement(fleetBroadcast(v35, fleet), .gcm))
            #expect(throws: LANTestSocket.Failure.self) { _ = try answers.receiveDatagram(timeout: .milliseconds(300)) }
        }
    }

    private func fleetBroadcast(_ entry: LANDeviceIdentity, _ fleet: LANSimulatorFleet) -> LANBroadcast {
        LANBroadcast(
            gwId: entry.devId, ip: entry.ip, version: entry.version.rawValue,
            productKey: entry.identity.profile.productIDs.first ?? "", encrypt: true, active: 2, ability: 0,
            token: true,
            wifiConfigured: true)
    }

    @Test("devices.json carries each device's ip and version next to its id and key")
    func devicesJSON() async throws {
        let fleet = try LANSimulatorFleet(
            options: try LANFleetFixture.options(lights: 2, diffusers: 1), library: Fixture.library)
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(fleet.devicesJSON().utf8)) as? [[String: Any]])
        #expect(entries.count == 3)
        for (entry, identity) in zip(entries, fleet.identities) {
            #expect(entry["id"] as? String == identity.devId)
            #expect(entry["key"] as? String == identity.localKey)
            #expect(entry["ip"] as? String == identity.ip)
            #expect(entry["version"] as? String == identity.version.rawValue)
        }
        await fleet.stop()
    }
}
