import Foundation
import LocalBroker
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `timer start` and `timer status --follow` when something is off, as a user meets it:
/// the real binary, the real daemon (`serve`) on a private mosquitto.
@Suite("youll-devices timer on mistakes", .serialized, .timeLimit(.minutes(3)))
struct TimerMistakeTests {
    @Test("--until a time that passed today is refused with the fix, before anything is sent")
    func untilInThePast() async throws {
        // Two minutes ago, or today's 00:00 in the first minutes of a day: passed today either way.
        let now = Date()
        let past = max(now.addingTimeInterval(-120), Calendar.current.startOfDay(for: now))
        let parts = Calendar.current.dateComponents([.hour, .minute], from: past)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        let result = try await CLIRunner.run(
            ["timer", "start", "--until", time, "--config", "/nonexistent/config.yaml"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: --until \(time) is in the past (it is "), "\(result.stderr)")
        #expect(result.stderr.contains("use --until 'tomorrow \(time)' or --minutes N"), "\(result.stderr)")
    }

    @Test("timer start with no paired devices warns that nothing follows the session")
    func noDevicesWarns() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let started = try await rig.cli(["timer", "start", "--minutes", "5"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stderr.contains("warning: no devices are paired"), "\(started.stderr)")
        #expect(started.stdout.hasPrefix("started session "), "\(started.stdout)")
        _ = try await rig.cli(["timer", "stop", "--now"])
        await rig.shutdown()
    }

    @Test("the follow view stops with a line saying so when the daemon goes away, instead of counting on")
    func followStopsWithTheDaemon() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let started = try await rig.cli(["timer", "start", "--minutes", "5"])
        #expect(started.status == 0, "\(started.stderr)")
        let path = try CLIRunner.binary().path
        let environment = rig.cleanEnvironment()
        let configPath = rig.configPath
        let daemon = try #require(rig.daemon)
        let (lines, status) = try await withDeadline(60, "timer status --follow to end") {
            try await ChildProcess.streamingLines(
                path, ["timer", "status", "--follow", "--config", configPath], environment: environment
            ) { reader, _ in
                // The first line is the session's status: the view is following.
                var seen = [try await reader.next() ?? ""]
                // SIGTERM; the daemon is reaped by stopDaemon below, so its pid stays its own.
                daemon.signal(SIGTERM)
                while let line = try await reader.next() { seen.append(line) }
                return seen
            }
        }
        #expect(await rig.stopDaemon() == 0)
        #expect(status == 1)
        #expect(lines.first?.hasPrefix("meditation  00:") == true, "\(lines)")
        #expect(
            lines.last?.hasPrefix("the daemon stopped (youll/bridge/state offline): no longer following") == true,
            "\(lines)")
        #expect(!lines.joined().contains("\u{1B}"), "no terminal escapes into a pipe")
        await rig.shutdown()
    }

    @Test("timer status --follow --json is JSON Lines: the status, then the session's messages, ending with its end")
    func followAsJSONLines() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        // 15 s: time for the follow to subscribe, and an end of its own.
        let started = try await rig.cli(["timer", "start", "--minutes", "0.25"])
        #expect(started.status == 0, "\(started.stderr)")
        let path = try CLIRunner.binary().path
        let (environment, configPath) = (rig.cleanEnvironment(), rig.configPath)
        let (lines, status) = try await withDeadline(60, "timer status --follow --json to end") {
            try await ChildProcess.streamingLines(
                path, ["timer", "status", "--follow", "--json", "--config", configPath], environment: environment
            ) { reader, _ in
                // Each line as it happens, not all at the end: the first well before the session's end.
                var seen = [try await reader.next() ?? ""]
                let first = ContinuousClock.now
                while let line = try await reader.next() { seen.append(line) }
                #expect(ContinuousClock.now - first > .seconds(5), "the stream came in one piece at the end")
                return seen
            }
        }
        #expect(status == 0)
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "a line twice in a row: \(lines)")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every line is one JSON object: \(lines)")
        #expect(objects.count > 1, "\(lines)")
        #expect(objects.first?["state"] as? String == "running", "\(lines)")
        #expect(objects.last?["type"] as? String == "session_ended", "\(lines)")
        await rig.shutdown()
    }
}
