import Foundation
import LocalBroker
import Testing
import TuyaCore
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `youll-devices simulate --fault` and `--water-minutes`: a maintenance reminder seen
/// without forging frames. Real parts: the simulate process on the rig's mosquitto, the
/// daemon (`serve`) and the CLI.
@Suite("youll-devices simulate faults and a tank that runs dry", .serialized, .timeLimit(.minutes(3)))
struct SimulateMaintenanceTests {
    /// The reminders of `name`'s maintenance topic say `type` is due.
    private static func due(_ type: String) -> @Sendable (BridgeObserver.Message) -> Bool {
        { message in
            guard case .array(let reminders)? = message.json else { return false }
            return reminders.contains { $0["type"]?.string == type && $0["state"]?.string == "due" }
        }
    }

    private func simulate(_ rig: DaemonRig, seed: Int, _ extra: [String]) -> [String] {
        [
            "simulate", "--lights", "0", "--diffusers", "1", "--broker", rig.broker.url, "--seed", String(seed),
            "--devices-json", rig.directory.appendingPathComponent("devices-\(seed).json").path,
            "--profiles", Repository.devicesDirectory.path,
        ] + extra
    }

    private func pairFirst(_ rig: DaemonRig, seed: Int, as name: String) async throws {
        let path = rig.directory.appendingPathComponent("devices-\(seed).json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [[String: Any]])
        let id = try #require(entries.first?["id"] as? String)
        let key = try #require(entries.first?["key"] as? String)
        let paired = try await rig.cli(["pair", "mqtt", id, "--name", name], environment: ["YOULL_LOCAL_KEY": key])
        #expect(paired.status == 0, "\(paired.stderr)")
    }

    @Test("--fault water_shortage makes the refill reminder due; --water-minutes runs a misting tank dry")
    func faultAndDryTank() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let binary = try CLIRunner.binary().path
        let faulty = simulate(rig, seed: 81, ["--fault", "water_shortage"])
        let thirsty = simulate(rig, seed: 82, ["--water-minutes", "0.02"])
        _ = try await ChildProcess.streamingLines(binary, faulty) { lines, signal in
            defer { try? signal(SIGTERM) }
            let banner = try await lines.next() ?? ""
            #expect(banner.hasPrefix("simulating 1 devices"), "\(banner)")
            #expect(try await lines.next()?.hasPrefix("raised water_shortage on ") == true)
            let mark = await rig.observer.mark
            try await pairFirst(rig, seed: 81, as: "faulty")
            _ = try await rig.observer.wait(for: "youll/faulty/maintenance", after: mark, where: Self.due("refill"))
            let list = try await rig.cli(["maintenance", "list", "faulty"])
            #expect(list.stdout.split(separator: "\n").contains { $0.contains("refill") && $0.contains("due") })

            _ = try await ChildProcess.streamingLines(binary, thirsty) { lines, signal in
                defer { try? signal(SIGTERM) }
                #expect(try await lines.next()?.hasPrefix("simulating 1 devices") == true)
                let mark = await rig.observer.mark
                try await pairFirst(rig, seed: 82, as: "thirsty")
                // 1.2 s of mist empties the tank: the diffuser stops misting and reports water_shortage.
                let set = try await rig.cli(["set", "thirsty", "state=ON", "mist=ON"])
                #expect(set.status == 0, "\(set.stderr)")
                _ = try await rig.observer.wait(
                    for: "youll/thirsty/maintenance", after: mark, where: Self.due("refill"))
            }
        }
        let refused = try await CLIRunner.run(simulate(rig, seed: 83, ["--fault", "on_fire"]))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--fault: no diffuser profile has a fault \"on_fire\"; known: water_shortage"))
        await rig.shutdown()
    }
}
