import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire

/// Real parts: 500 simulated LAN devices in this process (one SwiftNIO thread), each on its
/// own loopback address at TCP 6668, and 500 client connections held at once.
@Suite("Five hundred simulated LAN devices")
struct LANFiveHundredDevicesTests {
    @Test("500 devices of mixed versions each hold a connection at the same time and answer on it")
    func fiveHundred() async throws {
        let options = try LANFleetFixture.options(lights: 350, diffusers: 150)
        try await LANFleetFixture.withFleet(options) { fleet in
            #expect(Set(fleet.identities.map(\.ip)).count == 500)
            var clients: [LANTestClient] = []
            for entry in fleet.identities {
                clients.append(
                    try LANTestClient(ip: entry.ip, port: 6668, version: entry.version, localKey: entry.localKey))
            }
            for (client, entry) in zip(clients, fleet.identities) {
                try client.send(.heartbeat(devId: entry.devId))
            }
            for (client, entry) in zip(clients, fleet.identities) {
                #expect(try client.next().command == .heartBeat, "\(entry.ip) \(entry.version)")
            }
            let last = try #require(fleet.identities.last)
            #expect(await fleet.lanStatistics(of: last.devId)?.connectionsAccepted == 1)
        }
    }
}
