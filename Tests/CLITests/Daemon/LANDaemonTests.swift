import DeviceSimulator
import Foundation
import LocalBroker
import Synchronization
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Tuya LAN devices through the whole gateway: the real `youll-devices` binary (`serve`
/// and the CLI), a real mosquitto, and simulated LAN devices listening on TCP 6668 of
/// their own loopback addresses and broadcasting on free UDP ports, which the daemon is
/// configured to hear (`lan:` in its configuration file).
@Suite("LAN devices through the daemon and the CLI", .serialized, .timeLimit(.minutes(4)))
struct LANDaemonTests {
    private static let handedOut = Mutex<Set<String>>([])

    /// 127.x.y.1 with x in 251–254: never the same twice in this process, and outside the
    /// 20–250 that DeviceSimulatorTests' fleets use, so suites running at once never meet.
    static func baseAddress() -> String {
        while true {
            let candidate = "127.\(Int.random(in: 251...254)).\(Int.random(in: 1...250)).1"
            if handedOut.withLock({ $0.insert(candidate).inserted }) { return candidate }
        }
    }

    /// A started fleet (lights, then diffusers; versions in turn) announcing itself every
    /// 500 ms on free ports, and a rig whose daemon listens on those ports.
    static func world(
        lights: Int, diffusers: Int = 0, versions: [LANProtocolVersion]
    ) async throws -> (DaemonRig, LANSimulatorFleet) {
        let discovery = try LocalBroker.freeLoopbackPort()
        let plaintext = try LocalBroker.freeLoopbackPort()
        let solicitation = try LocalBroker.freeLoopbackPort()
        let options = LANSimulatorOptions(
            lights: lights, diffusers: diffusers, versions: versions, baseAddress: baseAddress(),
            discoveryPort: discovery, plaintextDiscoveryPort: plaintext, broadcastInterval: .milliseconds(500),
            solicitationPort: solicitation, seed: UInt64.random(in: 1...1_000_000),
            behaviour: DeviceBehaviour(reportDelay: .milliseconds(5)))
        let fleet = try LANSimulatorFleet(options: options, library: Repository.shippedProfiles)
        try await fleet.start()
        let rig = try await DaemonRig(
            extraConfig: """
                lan:
                  discovery_ports: [\(discovery), \(plaintext)]
                  solicitation: 127.255.255.255:\(solicitation)
                  answer_to: 127.0.0.1
                """)
        return (rig, fleet)
    }

    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    private func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    private func waitOnline(_ rig: DaemonRig, _ names: [String], after mark: Int = 0) async throws {
        for name in names {
            _ = try await rig.observer.wait(for: "youll/\(name)/availability", after: mark) {
                $0.json?["state"]?.string == "online"
            }
        }
    }

    @Test(
        "pair import pairs a LAN devices.json (3.3, 3.4, 3.5) over the LAN; set is confirmed by the devices, get reads it, Home Assistant discovery lists them, and after a restart they are online at their stored addresses"
    )
    func importSetGetRestart() async throws {
        let (rig, fleet) = try await Self.world(lights: 2, diffusers: 1, versions: [.v3_3, .v3_4, .v3_5])
        try await rig.startDaemon()
        let file = rig.directory.appendingPathComponent("devices.json").path
        try fleet.devicesJSON().write(toFile: file, atomically: true, encoding: .utf8)

        let imported = try await rig.cli(["pair", "import", file])
        #expect(imported.status == 0, "\(imported.stdout)\n\(imported.stderr)")
        for entry in fleet.identities {
            let row = lines(imported.stdout).first { $0.hasPrefix(entry.devId + " ") }
            #expect(row?.hasSuffix("  paired") == true, "\(imported.stdout)")
        }
        let names = fleet.identities.map(\.identity.name)
        try await waitOnline(rig, names)
        let listed = try await rig.cli(["devices", "--json"])
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(
            devices.count == 3 && devices.allSatisfy { $0["availability"] as? String == "online" }, "\(listed.stdout)")

        // Each light (3.3 and 3.4) confirms a set; the 3.5 diffuser switches on.
        for light in fleet.identities.prefix(2) {
            let set = try await rig.cli(["set", light.identity.name, "state=ON", "brightness=40"])
            #expect(set.status == 0, "\(light.version): \(set.stderr)")
            let dps = try #require(await fleet.state(of: light.devId))
            #expect(dps[DataPointID(20)!] == .bool(true), "\(light.version)")
            #expect(dps[DataPointID(22)!] == .value(406), "\(light.version)")
            let get = try await rig.cli(["get", light.identity.name, "--json"])
            let state = try jsonObject(get.stdout)
            #expect(state["brightness"] as? Int == 40 && state["state"] as? String == "ON", "\(get.stdout)")
        }
        let diffuser = fleet.identities[2]
        let mist = try await rig.cli(["set", diffuser.identity.name, "state=ON"])
        #expect(mist.status == 0, "3.5: \(mist.stderr)")
        #expect(await fleet.state(of: diffuser.devId)?[DataPointID(1)!] == .bool(true))

        // Home Assistant sees a LAN device as it sees an MQTT one.
        let config = try await rig.observer.wait(for: "homeassistant/device/youll_\(fleet.identities[1].devId)/config")
        #expect(config.json?["components"]?["light"]?["schema"]?.string == "json", "\(config.text.prefix(400))")

        // A restart: the devices come back online from the stored endpoints, and obey.
        #expect(await rig.stopDaemon() == 0)
        let mark = await rig.observer.mark
        try await rig.startDaemon()
        try await waitOnline(rig, names, after: mark)
        let light = fleet.identities[1]
        let dim = try await rig.cli(["set", light.identity.name, "brightness=50"])
        #expect(dim.status == 0, "after the restart: \(dim.stderr)")
        #expect(await fleet.state(of: light.devId)?[DataPointID(22)!] == .value(505))
        for entry in fleet.identities {
            #expect(!imported.stdout.contains(entry.localKey) && !rig.log.contains(entry.localKey), "no key shown")
        }
        await rig.shutdown()
        await fleet.stop()
    }

    @Test(
        "pair lan: a wrong key fails naming the key on 3.3 and 3.4, a refused connection fails naming the app that may hold the device, an unknown version is named, pair permit lists the devices heard, and a device pairs from its broadcast alone"
    )
    func pairLANOutcomes() async throws {
        let (rig, fleet) = try await Self.world(lights: 3, versions: [.v3_3, .v3_4, .v3_5])
        try await rig.startDaemon()
        let wrongKey = "Wr0ngKey-Wr0ngK!"
        let configPath = rig.configPath
        let arguments = fleet.identities.prefix(2).map { entry in
            [
                "pair", "lan", entry.devId, "--ip", entry.ip, "--protocol", entry.version.rawValue, "--config",
                configPath,
            ]
        }
        let environment = rig.cleanEnvironment(["YOULL_LOCAL_KEY": wrongKey])
        async let first = DaemonRig.cli(arguments[0], environment: environment)
        async let second = DaemonRig.cli(arguments[1], environment: environment)
        let (wrong33, wrong34) = try await (first, second)
        for (result, version) in [(wrong33, "3.3"), (wrong34, "3.4")] {
            #expect(result.status == 1, "\(version): \(result.stdout)\n\(result.stderr)")
            let line = result.stderr.trimmingCharacters(in: .newlines)
            #expect(lines(result.stderr).count == 1 && line.hasPrefix("error: "), "\(result.stderr)")
            #expect(line.contains("local key"), "\(version): \(line)")
            #expect(!line.contains(wrongKey))
        }

        // Nothing listens at the .250 address of the fleet's block: the connection is refused,
        // which on a real network means another app holds the device.
        let absent = fleet.identities[0].ip.split(separator: ".").prefix(3).joined(separator: ".") + ".250"
        let refused = try await rig.cli(
            ["pair", "lan", fleet.identities[0].devId, "--ip", absent, "--protocol", "3.3"],
            environment: ["YOULL_LOCAL_KEY": fleet.identities[0].localKey])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("close the Tuya/Smart Life app"), "\(refused.stderr)")

        // A version this gateway does not speak is named, before anything is sent.
        let future = try await rig.cli(
            ["pair", "lan", fleet.identities[0].devId, "--ip", fleet.identities[0].ip, "--protocol", "3.9"],
            environment: ["YOULL_LOCAL_KEY": fleet.identities[0].localKey])
        #expect(future.status == 1)
        #expect(
            future.stderr.contains("the device speaks protocol 3.9, which this gateway does not"), "\(future.stderr)")

        // A pairing window lists each device as its broadcast is heard (every 500 ms).
        let mark = await rig.observer.mark
        _ = try await rig.request("permit_join", ["value": .bool(true), "time": .integer(30)])
        for entry in fleet.identities {
            let found = try await rig.observer.wait(for: "youll/bridge/event", after: mark) {
                $0.json?["type"]?.string == "device_found" && $0.json?["data"]?["id"]?.string == entry.devId
            }
            // The event carries what `pair lan` needs: where the device is and what it speaks.
            #expect(found.json?["data"]?["ip"]?.string == entry.ip)
            #expect(found.json?["data"]?["version"]?.string == entry.version.rawValue)
            #expect(found.json?["data"]?["transport"]?.string == "lan")
        }

        // pair permit names every unpaired device heard, with its address and version.
        let permit = try await rig.cli(["pair", "permit", "--seconds", "1"])
        #expect(permit.status == 0, "\(permit.stderr)")
        for entry in fleet.identities {
            #expect(
                permit.stdout.contains("heard on the LAN: \(entry.devId) at \(entry.ip), protocol \(entry.version)"),
                "\(permit.stdout)")
        }

        // The 3.5 device pairs with its id and key alone: address and version from its broadcast.
        let device = fleet.identities[2]
        let paired = try await rig.cli(
            ["pair", "lan", device.devId, "--name", "porch"], environment: ["YOULL_LOCAL_KEY": device.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout == "paired porch (\(device.devId)) over the LAN, profile rgbcct-bulb-v2\n")
        let set = try await rig.cli(["set", "porch", "state=ON"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(await fleet.state(of: device.devId)?[DataPointID(20)!] == .bool(true))
        #expect(!rig.log.contains(device.localKey) && !rig.log.contains(wrongKey))
        await rig.shutdown()
        await fleet.stop()
    }
}
