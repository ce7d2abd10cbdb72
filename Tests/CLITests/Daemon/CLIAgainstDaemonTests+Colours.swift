import Foundation
import Testing

extension CLIAgainstDaemonTests {
    @Test("set takes a colour by name, #rrggbb and r,g,b; a bad colour names the field")
    func colours() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 44)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")
        for (value, hue, saturation) in [("orange", 39, 100), ("#0000ff", 240, 100), ("0,255,0", 120, 100)] {
            let set = try await rig.cli(["set", "desk", "color=\(value)"])
            #expect(set.status == 0, "\(value): \(set.stderr)")
            let state = try jsonObject(try await rig.cli(["get", "desk", "--json"]).stdout)
            let colour = state["color"] as? [String: Any]
            #expect(colour?["hue"] as? Int == hue, "\(value): \(state)")
            #expect(colour?["saturation"] as? Int == saturation, "\(value): \(state)")
        }
        let bad = try await rig.cli(["set", "desk", "color=#12zz45"])
        #expect(expectOneLineError(bad).contains("color: \"#12zz45\" is not #rrggbb"), "\(bad.stderr)")
        let unknown = try await rig.cli(["set", "desk", "color=oragne"])
        #expect(expectOneLineError(unknown).contains("unknown colour name \"oragne\""), "\(unknown.stderr)")
        await rig.shutdown()
    }
}
