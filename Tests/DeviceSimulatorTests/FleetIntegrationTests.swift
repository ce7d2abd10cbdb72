// Starts a real mosquitto (LocalBroker), a SimulatorFleet on its own swarm thread, and a test gateway on another.
import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore
import TuyaWire

@Suite("simulated fleet on a real broker", .serialized)
struct FleetIntegrationTests {
    private func startFleet(
        _ broker: LocalBroker, lights: Int = 1, diffusers: Int = 1, delay: Duration = .milliseconds(5)
    ) async throws -> SimulatorFleet {
        let fleet = try SimulatorFleet(
            options: .init(
                lights: lights, diffusers: diffusers, seed: 11, behaviour: DeviceBehaviour(reportDelay: delay)),
            library: Fixture.library,
            broker: SwarmConfiguration(port: broker.port, reconnectDelay: .milliseconds(20) ... .milliseconds(200)))
        try await fleet.start()
        let connected = await fleet.waitUntilConnected(timeout: .seconds(10))
        try #require(connected, "the fleet did not connect")
        return fleet
    }

    @Test(
        "a command frame on smart/device/in is answered by a protocol-4 report on smart/device/out that decodes with the device key"
    )
    func commandIsAnswered() async throws {
        let broker = try await LocalBroker.started()
        let fleet = try await startFleet(broker)
        defer { fleet.stop() }
        let gateway = try await Gateway.start(port: broker.port, fleet: fleet) { $0.count < 5 }
        defer { gateway.swarm.stop() }
        let light = fleet.identities[0]
        await gateway.send(
            try Fixture.command(["20": .bool(true), "22": .integer(640)], key: light.localKey), to: light.devId)
        let answers = try #require(await gateway.markedDevices(atLeast: 1, timeout: .seconds(30)))
        #expect(answers == [light.devId])
        let messages = try #require(await gateway.messages(from: light.devId))
        #expect(messages.last?.dps == ["20": .bool(true), "22": .integer(640)])
        let decoded = try Fixture.report(try #require(messages.last).payload, key: light.localKey)
        #expect(decoded.devId == light.devId)
        #expect(await fleet.state(of: light.devId)?[dp(22)] == .value(640))
    }

    @Test("a protocol-31 query over the broker returns every data point of a light and of a diffuser")
    func queryReturnsAllDataPoints() async throws {
        let broker = try await LocalBroker.started()
        let fleet = try await startFleet(broker)
        defer { fleet.stop() }
        let gateway = try await Gateway.start(port: broker.port, fleet: fleet)
        defer { gateway.swarm.stop() }
        for identity in fleet.identities {
            await gateway.send(try Fixture.query(key: identity.localKey), to: identity.devId)
            let messages = try #require(await gateway.messages(from: identity.devId))
            let expected = Set(identity.profile.dataPoints.map(\.id.jsonKey))
            #expect(messages.last.flatMap { $0.dps.map { Set($0.keys) } } == expected)
        }
    }

    @Test("a device with a wrong key answers with frames the gateway cannot decrypt")
    func wrongKeyOverTheWire() async throws {
        let broker = try await LocalBroker.started()
        let fleet = try await startFleet(broker, lights: 1, diffusers: 0)
        defer { fleet.stop() }
        let gateway = try await Gateway.start(port: broker.port, fleet: fleet)
        defer { gateway.swarm.stop() }
        let light = fleet.identities[0]
        await fleet.setMisbehaviour(Misbehaviour(wrongKey: "XXXXXXXXXXXXXXXX"), for: light.devId)
        await gateway.send(try Fixture.query(key: light.localKey), to: light.devId)
        // The device may also have sent its connect-time report (decodable) before the
        // misbehaviour was set: wait for the answer that the right key cannot decode.
        let answer = try #require(await gateway.firstMessage(from: light.devId) { $0.dps == nil })
        #expect(try Fixture.report(answer.payload, key: "XXXXXXXXXXXXXXXX").dps.count == 7)
    }

    @Test("a device taken offline leaves the broker and misses what is sent; back online it reports every DP")
    func offlineAndBackOnTheBroker() async throws {
        let broker = try await LocalBroker.started()
        let fleet = try await startFleet(broker, lights: 2, diffusers: 0, delay: .zero)
        defer { fleet.stop() }
        let gateway = try await Gateway.start(port: broker.port, fleet: fleet)
        defer { gateway.swarm.stop() }
        let (away, present) = (fleet.identities[0], fleet.identities[1])

        await fleet.goOffline(away.devId)
        let left = await fleet.swarm.waitUntil(timeout: .seconds(30)) { engine in engine.isConnected(0) ? nil : true }
        #expect(left == true)
        // Both queries leave on one connection in order: once the present device has
        // answered, the broker has already routed the first one, to nobody.
        await gateway.send(try Fixture.query(key: away.localKey), to: away.devId)
        await gateway.send(try Fixture.query(key: present.localKey), to: present.devId)
        #expect(await gateway.messages(from: present.devId) != nil)
        #expect(await fleet.statistics(of: away.devId)?.framesReceived == 0)

        await fleet.comeOnline(away.devId)
        let announced = try #require(await gateway.messages(from: away.devId))
        #expect(announced.first?.dps?.count == 7)
        #expect(await fleet.statistics(of: away.devId)?.framesReceived == 0)
    }

    @Test("devices reconnect when the broker dies and comes back, then answer again")
    func reconnectAfterBrokerRestart() async throws {
        let broker = try await LocalBroker.started()
        let fleet = try await startFleet(broker, lights: 3, diffusers: 3)
        defer { fleet.stop() }
        broker.stop()
        let dropped = await fleet.swarm.waitUntil(timeout: .seconds(30)) { engine in
            engine.connectedCount == 0 ? true : nil
        }
        #expect(dropped == true)
        try await broker.restart()
        #expect(await fleet.waitUntilConnected(timeout: .seconds(10)))
        let gateway = try await Gateway.start(port: broker.port, fleet: fleet) { $0.count == 1 }
        defer { gateway.swarm.stop() }
        for identity in fleet.identities {
            let first = try #require(identity.profile.dataPoints.first).id.intValue
            await gateway.send(try Fixture.query([first], key: identity.localKey), to: identity.devId)
        }
        let answered = await gateway.markedDevices(atLeast: 6, timeout: .seconds(30))
        #expect(answered == Set(fleet.identities.map(\.devId)))
    }

    @Test("stopping the swarm disconnects every client and ends pending waits")
    func cleanShutdown() async throws {
        let broker = try await LocalBroker.started()
        let fleet = try await startFleet(broker, lights: 2, diffusers: 2)
        fleet.stop()
        #expect(await fleet.swarm.perform { engine in engine.connectedCount } == 0)
        #expect(await fleet.waitUntilConnected(timeout: .seconds(5)) == false)
        fleet.stop()
    }

    @Test(
        "devices.json lists every device tinytuya-style with 22-character devIds and 16-character keys, the same for the same seed"
    )
    func devicesJSON() throws {
        func make(seed: UInt64) throws -> SimulatorFleet {
            try SimulatorFleet(
                options: .init(lights: 3, diffusers: 2, seed: seed), library: Fixture.library,
                broker: SwarmConfiguration(port: 1))
        }
        let fleet = try make(seed: 5)
        let json = fleet.devicesJSON()
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(entries.count == 5)
        let lowercaseAlphanumerics = Set("abcdefghijklmnopqrstuvwxyz0123456789")
        for (entry, identity) in zip(entries, fleet.identities) {
            let id = try #require(entry["id"] as? String)
            #expect(id == identity.devId)
            #expect(id.count == 22 && id.hasPrefix("bf") && id.allSatisfy(lowercaseAlphanumerics.contains))
            let key = try #require(entry["key"] as? String)
            #expect(key.count == 16 && key.allSatisfy { $0.isASCII && !$0.isWhitespace })
            #expect(entry["version"] as? String == "3.3")
            #expect(entry["product_id"] as? String == identity.profile.productIDs.first)
            #expect(entry["name"] as? String == identity.name)
            #expect((entry["mapping"] as? [String: Any])?.count == identity.profile.dataPoints.count)
        }
        #expect(Set(fleet.identities.map(\.devId)).count == 5)
        #expect(try make(seed: 5).devicesJSON() == json)
        #expect(try make(seed: 6).devicesJSON() != json)
    }

    @Test("an unknown profile or a malformed broker URL is refused with the fix in the message")
    func badInputs() {
        #expect(throws: SimulatorError.self) {
            try SimulatorFleet(
                options: .init(lights: 1, diffusers: 0, lightProfile: "nope"), library: Fixture.library,
                broker: SwarmConfiguration(port: 1))
        }
        #expect(throws: SimulatorError.invalidBrokerURL("http://x/y")) {
            try SwarmConfiguration(brokerURL: "http://x/y")
        }
        #expect(throws: SimulatorError.invalidBrokerURL("127.0.0.1:99999")) {
            try SwarmConfiguration(brokerURL: "127.0.0.1:99999")
        }
        #expect((try? SwarmConfiguration(brokerURL: "mqtt://127.0.0.1:1884"))?.port == 1884)
        #expect((try? SwarmConfiguration(brokerURL: "127.0.0.1"))?.port == 1883)
    }
}
