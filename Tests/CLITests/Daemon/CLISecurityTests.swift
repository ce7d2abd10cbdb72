import Foundation
import Testing
import TuyaCore
import YoullTestSupport

/// The real CLI against the real daemon with `bridge.auth` on (the default): it signs with the
/// token it can read and seals keys; one that cannot read the token is told why and what to do.
@Suite("youll-devices CLI with a secured bridge", .serialized)
struct CLISecurityTests {
    @Test(
        "a CLI without the token is refused with why and how to fix it; a copy of the token works, and no key or token is ever logged or published"
    )
    func tokenForRemoteCLI() async throws {
        let rig = try await DaemonRig(extraConfig: "log_level: debug")
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 45)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")

        let missing = rig.directory.appendingPathComponent("no-such-token").path
        let refused = try await rig.cli(["rename", "desk", "study"], environment: ["YOULL_BRIDGE_TOKEN_FILE": missing])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("request not signed"), "\(refused.stderr)")
        #expect(refused.stderr.contains("\(missing) does not exist"), "\(refused.stderr)")
        #expect(refused.stderr.contains("YOULL_BRIDGE_TOKEN_FILE"), "\(refused.stderr)")

        // An admin hands a copy of the token to a remote CLI.
        let token = try String(contentsOfFile: rig.stateDirectory + "/bridge-token", encoding: .utf8)
        let copy = rig.directory.appendingPathComponent("token-copy").path
        try token.write(toFile: copy, atomically: true, encoding: .utf8)
        let renamed = try await rig.cli(["rename", "desk", "study"], environment: ["YOULL_BRIDGE_TOKEN_FILE": copy])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let rekey = try await rig.cli(["rekey", "study"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(rekey.status == 0, "\(rekey.stderr)")

        let secret = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let published = await rig.observer.messages.map { $0.topic + " " + $0.text }.joined(separator: "\n")
        let outputs = [paired, refused, renamed, rekey].map { $0.stdout + $0.stderr }.joined()
        for (what, text) in [("the daemon's log", rig.log), ("the broker", published), ("the CLI", outputs)] {
            #expect(!text.contains(desk.localKey), "\(what) shows the local key")
            #expect(!text.contains(secret), "\(what) shows the token")
        }
        #expect(rig.log.contains("request device/rename"), "the debug log was captured")
        await rig.shutdown()
    }
}
