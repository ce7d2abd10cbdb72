import Foundation
import LocalBroker
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `youll-devices monitor` as a user runs it, the real binary against the real daemon: a
/// change prints what changed, and the broker going away is said and survived.
@Suite("youll-devices monitor through a broker restart", .serialized, .timeLimit(.minutes(3)))
struct MonitorReconnectTests {
    @Test("monitor prints what changed, says when the broker goes away, and reconnects when it is back")
    func reconnects() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 91)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")
        _ = try await rig.observer.wait(for: "youll/desk") { $0.json?["brightness"] != nil }

        let binary = try CLIRunner.binary().path
        let arguments = ["monitor", "--retained", "--config", rig.configPath]
        let (lines, _) = try await ChildProcess.streamingLines(
            binary, arguments, environment: rig.cleanEnvironment()
        ) { output, signal in
            defer { try? signal(SIGTERM) }
            var seen: [String] = []
            // The retained state comes first, whole: the monitor is subscribed.
            while let line = try await output.next() {
                seen.append(line)
                if line.contains("desk") && line.contains("  state  ") { break }
            }
            let set = try await rig.cli(["set", "desk", "brightness=25"])
            #expect(set.status == 0, "\(set.stderr)")
            while let line = try await output.next() {
                seen.append(line)
                if line.contains("desk") && line.contains("  state  ") && line.contains("25") { break }
            }
            rig.broker.stop()
            while let line = try await output.next() {
                seen.append(line)
                if line.contains("lost the connection to the broker; reconnecting") { break }
            }
            try await rig.broker.restart()
            while let line = try await output.next() {
                seen.append(line)
                if line.contains("reconnected to the broker") { break }
            }
            return seen
        }
        let states = lines.filter { $0.contains("desk") && $0.contains("  state  ") }
        #expect(states.first?.contains(#""color_temp""#) == true, "the retained state whole: \(lines)")
        #expect(states.last?.hasSuffix(#"  {"brightness":25}"#) == true, "then only what changed: \(lines)")
        #expect(
            lines.contains { $0.contains("broker") && $0.contains("lost the connection to the broker") }, "\(lines)")
        #expect(
            lines.last?.contains("reconnected to the broker at mqtt://127.0.0.1:\(rig.broker.port)") == true, "\(lines)"
        )
        await rig.shutdown()
    }
}
