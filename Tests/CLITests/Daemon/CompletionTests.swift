import DeviceSimulator
import Foundation
import Testing

/// Shell completion as the generated scripts ask for it (`youll-devices ---completion …`),
/// through the real binary against the running daemon (issue 14 item 20).
@Suite("youll-devices shell completion", .serialized)
struct CompletionTests {
    @Test("device names, a device's fields and the presets complete from the daemon and the configuration")
    func completesFromTheDaemon() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 47)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")

        // What bash hands the binary: the line's words, the index of the one under the
        // cursor and the cursor's place in it (here always the last word, as when typing).
        let config = ["--config", rig.configPath]
        func complete(_ argument: [String], _ line: [String]) async throws -> [Substring] {
            let arguments = ["---completion"] + argument + [String(line.count - 1), String(line.last!.count)] + line
            let result = try await DaemonRig.cli(arguments, environment: rig.cleanEnvironment())
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n")
        }
        // `youll-devices get <TAB>`, then `youll-devices set desk bri<TAB>`.
        #expect(
            try await complete(["get", "--", "positional@0"], ["youll-devices", "get"] + config + [""]) == ["desk"])
        let fields = try await complete(
            ["set", "--", "positional@1"], ["youll-devices", "set"] + config + ["desk", "bri"])
        #expect(fields == ["brightness="])
        let presets = try await complete(
            ["timer", "start", "--", "--preset"], ["youll-devices", "timer", "start"] + config + ["--preset", ""])
        #expect(Set(presets).isSuperset(of: ["calm", "focus", "sleep"]))
        await rig.shutdown()
    }

    @Test("device arguments complete names, not file names, in the bash script")
    func scriptAsksTheBinary() async throws {
        let script = try await DaemonRig.cli(["--generate-completion-script", "bash"], environment: [:])
        #expect(script.status == 0)
        #expect(script.stdout.contains("---completion get -- positional@0"))
        #expect(script.stdout.contains("---completion set -- positional@1"))
    }
}
