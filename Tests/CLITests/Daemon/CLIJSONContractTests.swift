import DeviceSimulator
import Foundation
import Testing

/// `--json` answers of the pairing commands have the shape of `devices --json` entries
/// (issue 14 item 18), through the real binary against the running daemon.
@Suite("youll-devices --json shapes against the daemon", .serialized)
struct CLIJSONContractTests {
    @Test("pair mqtt --json answers with the device as devices --json lists it, availability and product_id included")
    func pairAnswersLikeDevices() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 48)
        defer { fleet.stop() }
        let lamp = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", lamp.devId, "--name", "lamp", "--json"], environment: ["YOULL_LOCAL_KEY": lamp.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.filter { $0 == "\n" }.count == 1)
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(paired.stdout.utf8)) as? [String: Any], "\(paired.stdout)")
        #expect(answer["availability"] as? String == "online")
        #expect(answer.keys.contains("product_id"))
        let listed = try await rig.cli(["devices", "--json"])
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let entry = try #require(entries.first { $0["friendly_name"] as? String == "lamp" })
        #expect(
            Set(entry.keys).subtracting(["product_id"]).isSubset(of: Set(answer.keys)),
            "\(entry.keys) vs \(answer.keys)")
        await rig.shutdown()
    }
}
