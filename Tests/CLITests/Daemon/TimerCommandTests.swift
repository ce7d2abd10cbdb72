import Foundation
import LocalBroker
import Testing

/// `youll-devices timer …` as a user runs it: the real binary against the real daemon
/// (`serve`), a private mosquitto and a simulated light; then with the daemon stopped,
/// the same binary running the session in the foreground on the same state directory.
@Suite("youll-devices timer", .serialized, .timeLimit(.minutes(3)))
struct TimerCommandTests {
    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("start, a refused second start, status, pause, resume, stop and history through the daemon")
    func throughDaemon() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 71)
        defer { fleet.stop() }
        let lamp = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", lamp.devId, "--name", "lamp"], environment: ["YOULL_LOCAL_KEY": lamp.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")

        let started = try await rig.cli(["timer", "start", "--minutes", "10", "--interval", "5", "--json"])
        #expect(started.status == 0, "\(started.stderr)")
        let status = try json(started.stdout)
        #expect(status["state"] as? String == "running")
        #expect(status["preset"] as? String == "calm")

        let second = try await rig.cli(["timer", "start", "--minutes", "5"])
        #expect(second.status == 1)
        #expect(second.stderr.hasPrefix("error: ") && second.stderr.contains("already running"), "\(second.stderr)")

        // Not a terminal: one plain line, no cursor movement.
        let shown = try await rig.cli(["timer", "status"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(lines(shown.stdout).count == 1)
        #expect(shown.stdout.hasPrefix("meditation  00:"), "\(shown.stdout)")
        #expect(shown.stdout.contains("/ 10:00 ["), "\(shown.stdout)")
        #expect(shown.stdout.contains("next bell 0"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("\u{1B}"))

        let paused = try await rig.cli(["timer", "pause"])
        #expect(paused.stdout.contains("(paused)"), "\(paused.stdout)\(paused.stderr)")
        // Pausing a paused session is a no-op, not an error.
        let again = try await rig.cli(["timer", "pause"])
        #expect(again.status == 0 && again.stdout.contains("(paused)"), "\(again.stdout)\(again.stderr)")
        let resumed = try await rig.cli(["timer", "resume"])
        #expect(resumed.status == 0 && !resumed.stdout.contains("(paused)"), "\(resumed.stdout)\(resumed.stderr)")
        let stopped = try await rig.cli(["timer", "stop", "--now"])
        #expect(stopped.status == 0, "\(stopped.stderr)")

        let idle = try await rig.cli(["timer", "status"])
        #expect(idle.stdout == "no session is running\n")
        let history = try await rig.cli(["timer", "history", "--json"])
        let report = try json(history.stdout)
        let sessions = try #require(report["sessions"] as? [[String: Any]])
        #expect(sessions.map { $0["state"] as? String } == ["stopped"])
        let table = try await rig.cli(["timer", "history"])
        #expect(
            lines(table.stdout).first?.split(separator: " ", omittingEmptySubsequences: true) == [
                "STARTED", "PRESET", "STATE", "LENGTH",
            ])
        #expect(table.stdout.contains("0 completed"), "\(table.stdout)")
        await rig.shutdown()
    }

    @Test("with no daemon the session runs in the foreground, prints its cues and is kept in the history")
    func foreground() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 72)
        defer { fleet.stop() }
        let lamp = fleet.identities[0]
        _ = try await rig.cli(
            ["pair", "mqtt", lamp.devId, "--name", "lamp"], environment: ["YOULL_LOCAL_KEY": lamp.localKey])
        #expect(await rig.stopDaemon() == 0)

        // 4.5 s: the bell at 1.5 s pulses the lamp (back at 3.5 s); the one at 3 s would return after the end.
        let run = try await rig.cli(["timer", "start", "--preset", "focus", "--stage", "sit:0.075:0.025"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("no daemon is running"), "\(run.stderr)")
        let output = lines(run.stdout)
        #expect(output.contains { $0.contains("bell 1 of stage 1") && $0.contains("lamp") }, "\(run.stdout)")
        #expect(
            output.contains { $0.contains("restore") && $0.contains("lamp") && $0.contains("sent") }, "\(run.stdout)")
        #expect(output.last?.hasPrefix("session completed after 00:0") == true, "\(run.stdout)")
        #expect(output.contains("badge earned: first session"), "\(run.stdout)")

        try await rig.startDaemon()
        let history = try await rig.cli(["timer", "history", "--json"])
        let report = try json(history.stdout)
        #expect(report["completed_sessions"] as? Int == 1, "\(history.stdout)")
        #expect(report["badges"] as? [String] == ["first_session"])
        let table = try await rig.cli(["timer", "history"])
        #expect(table.stdout.contains("1 completed, 00:0"), "\(table.stdout)")
        #expect(table.stdout.contains("; streak 1 day (longest 1 day)\n"), "\(table.stdout)")
        await rig.shutdown()
    }

    @Test(
        "bad start flags are refused in one line before anything is sent",
        arguments: [
            ([String](), "say how long"),
            (["--minutes", "5", "--until", "07:00"], "give only one kind"),
            (["--stage", "sit"], "--stage \"sit\""),
            (["--stage", "sit:ten"], "not a number of minutes"),
            (["--minutes", "5", "--devices", "a,,b"], "--devices"),
            (["--minutes", "nan"], "--minutes: nan is not a number"),
            (["--minutes", "5", "--warmup", "inf"], "--warmup: inf is not a number"),
            (["--open-ended", "--interval", "nan"], "--interval: nan is not a number"),
        ])
    func badFlags(arguments: [String], message: String) async throws {
        let result = try await CLIRunner.run(
            ["timer", "start"] + arguments + ["--config", "/nonexistent/config.yaml"])
        #expect(result.status == 64, "a usage mistake: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("presets lists the built-in presets without a daemon")
    func presets() async throws {
        let result = try await CLIRunner.run(["timer", "presets"])
        #expect(result.status == 0)
        let names = lines(result.stdout).filter { !$0.hasPrefix(" ") }
        #expect(names == ["calm", "focus", "sleep"])
        #expect(result.stdout.contains("sunrise to 80% 4000 K over 60 s"))
    }

    @Test(
        "--json is one contract: presets are one array of values, not prose; an error is a JSON object on stderr with a non-zero exit"
    )
    func jsonContract() async throws {
        let presets = try await CLIRunner.run(["timer", "presets", "--json"])
        #expect(presets.status == 0)
        #expect(presets.stdout.filter { $0 == "\n" }.count == 1, "one line: \(presets.stdout)")
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(presets.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["name"] as? String } == ["calm", "focus", "sleep"])
        let calm = try #require(array.first?["light"] as? [String: Any])
        #expect(calm["color_temp"] as? Int == 2700)
        #expect((calm["end"] as? [String: Any])?["effect"] as? String == "sunrise")

        let port = try LocalBroker.freeLoopbackPort()
        let failed = try await CLIRunner.run(
            ["get", "lamp", "--json", "--timeout", "2"], environment: ["YOULL_MQTT_URL": "mqtt://127.0.0.1:\(port)"])
        #expect(failed.status == 1)
        #expect(failed.stdout.isEmpty)
        let error = try #require(
            try JSONSerialization.jsonObject(with: Data(failed.stderr.utf8)) as? [String: Any], "\(failed.stderr)")
        #expect((error["error"] as? String)?.contains("cannot reach the broker") == true)
    }
}
