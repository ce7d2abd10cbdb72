// Starts a real mosquitto (LocalBroker), 1,000 simulated devices on one swarm thread, and a test gateway.
import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore

@Suite("a thousand devices in one process", .serialized)
struct ThousandDevicesTests {
    @Test("1,000 devices connect on one poll loop and each answers one query with a report that decodes with its key")
    func thousandDevicesAnswer() async throws {
        let broker = try await LocalBroker.started()
        let clock = ContinuousClock()
        let residentBefore = Self.residentKilobytes()
        let fleet = try SimulatorFleet(
            options: .init(lights: 500, diffusers: 500, seed: 1000, behaviour: DeviceBehaviour(reportDelay: .zero)),
            library: Fixture.library, broker: SwarmConfiguration(port: broker.port))
        defer { fleet.stop() }
        let connectStart = clock.now
        try await fleet.start()
        let connected = await fleet.waitUntilConnected(timeout: .seconds(15))
        let connectTime = clock.now - connectStart
        try #require(connected, "not every device connected within 15 s")
        let residentAfter = Self.residentKilobytes()

        // A query for one DP is answered with one DP; the report sent on connect has them all.
        let gateway = try await Gateway.start(port: broker.port, fleet: fleet) { $0.count == 1 }
        defer { gateway.swarm.stop() }
        let queryStart = clock.now
        for identity in fleet.identities {
            let first = try #require(identity.profile.dataPoints.first).id.intValue
            await gateway.send(try Fixture.query([first], key: identity.localKey), to: identity.devId)
        }
        let answered = await gateway.markedDevices(atLeast: 1000, timeout: .seconds(15))
        let queryTime = clock.now - queryStart
        #expect(answered?.count == 1000)
        #expect(answered == Set(fleet.identities.map(\.devId)))

        let perDevice = (residentAfter - residentBefore) * 1024 / 1000
        print(
            "1,000 devices: connected in \(connectTime), 1,000 queries answered in \(queryTime), "
                + "RSS +\(residentAfter - residentBefore) kB (\(perDevice) bytes per device)")
    }

    /// VmRSS of this process from /proc/self/status, in kB (0 where there is no /proc).
    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
