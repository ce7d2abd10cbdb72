import DeviceSimulator
import Foundation
import LocalBroker
import Testing

@testable import youll_devices

extension CLIAgainstDaemonTests {
    @Test(
        "pair mqtt and rekey with a wrong key against a device that is up stop at --timeout and say what silence means; no waiting line into a pipe"
    )
    func wrongKeyIsExplained() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 3, seed: 43)
        defer { fleet.stop() }
        let (desk, spare) = (fleet.identities[0], fleet.identities[1])
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")

        // Both devices are up and answer their own key; a query under another key goes unanswered.
        let wrongKey = ["YOULL_LOCAL_KEY": "Wr0ngKey-Wr0ngK!"]
        let started = ContinuousClock.now
        let pair = try await rig.cli(
            ["pair", "mqtt", spare.devId, "--name", "spare", "--timeout", "4"], environment: wrongKey)
        // The daemon's attempt for spare still waits out its 15 s window: asking again says so.
        let again = try await rig.cli(
            ["pair", "mqtt", spare.devId, "--name", "spare", "--timeout", "2"], environment: wrongKey)
        #expect(
            expectOneLineError(again).contains("a pairing of this device is still waiting for its answer"),
            "\(again.stderr)")
        let rekey = try await rig.cli(["rekey", "desk", "--timeout", "4"], environment: wrongKey)
        // Each stopped at its 4 s, before the daemon's own 15 s pairing window.
        #expect(ContinuousClock.now - started < .seconds(28))
        for (result, name) in [(pair, "spare"), (rekey, "desk")] {
            let line = expectOneLineError(result)
            #expect(line.contains("no answer from the device \(name) within 4 s"), "\(line)")
            #expect(line.contains("wrong local key"), "\(line)")
            #expect(line.contains("cannot decrypt the query does not answer"), "\(line)")
            #expect(line.contains("--timeout"), "\(line)")
            #expect(!result.stderr.contains("waiting for"), "no elapsed-time line into a pipe: \(result.stderr)")
            #expect(!result.stderr.contains("Wr0ngKey"))
        }
        expectNoKeys([paired, pair, rekey], fleet)

        // On a terminal (script(1) gives one) the wait is shown, counting seconds.
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "util-linux script is needed")
        let command =
            "'\(try CLIRunner.binary().path)' pair mqtt \(fleet.identities[2].devId) --name third --timeout 3 --config '\(rig.configPath)'"
        let terminal = try await ChildProcess.run(
            "/usr/bin/timeout", ["30", script, "-qec", command, "/dev/null"],
            environment: rig.cleanEnvironment(wrongKey))
        #expect(
            terminal.stdout.contains("waiting for third to answer… 0 s of 3 s (Ctrl-C to stop)"), "\(terminal.stdout)")
        #expect(terminal.stdout.contains("no answer from the device third within 3 s"), "\(terminal.stdout)")
        await rig.shutdown()
    }

    @Test("pair import with one device failing lists which and why, says how many on stderr, and exits 1")
    func importPartialFailure() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 2, seed: 47)
        defer { fleet.stop() }
        let file = rig.directory.appendingPathComponent("devices.json").path
        let wrong = fleet.devicesJSON().replacingOccurrences(
            of: fleet.identities[1].localKey, with: "Wr0ngKey-Wr0ngK!")
        try wrong.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await rig.cli(["pair", "import", file, "--json", "--timeout", "4"])
        #expect(result.status == 1)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(list.compactMap { $0["status"] as? String }.sorted() == ["error", "ok"], "\(result.stdout)")
        let error = try #require(try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
        #expect(error["error"] as? String == "1 of 2 devices could not be paired", "\(result.stderr)")
        #expect(!result.stdout.contains("Wr0ngKey") && !result.stderr.contains("Wr0ngKey"))
        await rig.shutdown()
    }

    @Test("remove of an unknown device on a terminal says so before asking to confirm")
    func removeUnknownOnTerminal() async throws {
        // script(1) gives the command a terminal; timeout(1) bounds a command that would wait for an answer.
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "util-linux script is needed")
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let command = "'\(try CLIRunner.binary().path)' remove nosuch --config '\(rig.configPath)'"
        let output = try await ChildProcess.run(
            "/usr/bin/timeout", ["20", script, "-qec", command, "/dev/null"], environment: rig.cleanEnvironment())
        #expect(output.stdout.contains("no device named \"nosuch\""), "\(output.stdout)")
        #expect(!output.stdout.contains("forget its local key?"), "asked before saying: \(output.stdout)")
        await rig.shutdown()
    }

    @Test("the waiting line on a terminal counts seconds of the time allowed")
    func waitingLine() {
        #expect(
            PairingWait.line(device: "desk", elapsed: 7, limit: 30)
                == "waiting for desk to answer… 7 s of 30 s (Ctrl-C to stop)")
    }
}
