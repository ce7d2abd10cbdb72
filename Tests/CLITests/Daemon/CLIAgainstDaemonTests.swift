import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// The CLI as a user runs it: the real `youll-devices` binary, with `--config` naming the
/// rig's configuration, against the real running daemon, a real broker and simulated
/// devices. Every assertion is on what the user sees (exit status, stdout, stderr) or on
/// what the device did.
@Suite("youll-devices CLI against the running daemon", .serialized)
struct CLIAgainstDaemonTests {
    /// A terminal that would show colour, so only stdout being a pipe keeps it off.
    static let colourTerminal = ["TERM": "xterm-256color"]

    @Test(
        "pair mqtt with the key from YOULL_LOCAL_KEY names the device and its profile; a wrong key and a silent device each fail in one line naming why"
    )
    func pairMQTT() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 2, seed: 41)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout == "paired desk (\(desk.devId)), profile rgbcct-bulb-v2\n")
        #expect(paired.stderr.isEmpty)

        // The second bulb encrypts its answers with a key the user did not give; the third
        // devId is not on the broker at all. Both wait out the daemon's pairing deadline,
        // so they run side by side.
        let other = fleet.identities[1]
        await fleet.setMisbehaviour(.init(wrongKey: "Wr0ngKey-Wr0ngK!"), for: other.devId)
        let absent = "bf" + String(repeating: "0", count: 20)
        let wrongArguments = ["pair", "mqtt", other.devId, "--name", "spare", "--config", rig.configPath]
        let absentArguments = ["pair", "mqtt", absent, "--config", rig.configPath]
        let wrongEnvironment = rig.cleanEnvironment(["YOULL_LOCAL_KEY": other.localKey])
        let absentEnvironment = rig.cleanEnvironment(["YOULL_LOCAL_KEY": "0123456789abcdef"])
        async let wrongRun = DaemonRig.cli(wrongArguments, environment: wrongEnvironment)
        async let absentRun = DaemonRig.cli(absentArguments, environment: absentEnvironment)
        let (wrong, silent) = try await (wrongRun, absentRun)
        let wrongLine = expectOneLineError(wrong)
        #expect(wrongLine.contains("the local key does not decrypt"), "\(wrongLine)")
        let silentLine = expectOneLineError(silent)
        #expect(silentLine.contains("no answer from the device"), "\(silentLine)")
        #expect(!silent.stderr.contains("0123456789abcdef"))
        expectNoKeys([paired, wrong, silent], fleet)

        // Only the device that paired is listed.
        let listed = try await rig.cli(["devices", "--json"])
        #expect(try jsonArray(listed.stdout).map { $0["friendly_name"] as? String } == ["desk"])
        #expect(!rig.log.contains(desk.localKey) && !rig.log.contains(other.localKey), "no key in the daemon's log")
        await rig.shutdown()
    }

    @Test(
        "pair import pairs every device of devices.json; again, each is already paired and that is success; devices lists them online"
    )
    func importAndList() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 2, diffusers: 1, seed: 42)
        defer { fleet.stop() }
        let file = try writeDevicesJSON(rig, fleet)

        let first = try await rig.cli(["pair", "import", file], environment: Self.colourTerminal)
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        #expect(first.stderr.isEmpty, "\(first.stderr)")
        let table = lines(first.stdout)
        #expect(table.first?.split(separator: " ", omittingEmptySubsequences: true) == ["ID", "NAME", "RESULT"])
        #expect(table.count == fleet.identities.count + 1, "\(first.stdout)")
        for identity in fleet.identities {
            let row = table.first { $0.hasPrefix(identity.devId + " ") }
            #expect(row?.contains(identity.name) == true, "\(first.stdout)")
            #expect(row?.hasSuffix("  paired") == true, "\(first.stdout)")
        }

        // An import run again is idempotent: each device is already paired with that key.
        let again = try await rig.cli(["pair", "import", file])
        #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
        let againTable = lines(again.stdout)
        #expect(againTable.count == fleet.identities.count + 1, "\(again.stdout)")
        for identity in fleet.identities {
            let row = againTable.first { $0.hasPrefix(identity.devId + " ") }
            #expect(row?.hasSuffix("  already paired") == true, "\(again.stdout)")
        }
        #expect(again.stderr.isEmpty, "\(again.stderr)")
        expectNoKeys([first, again], fleet)

        try await waitOnline(rig, fleet.identities.map(\.name))
        let devices = try await rig.cli(["devices"], environment: Self.colourTerminal)
        #expect(devices.status == 0, "\(devices.stderr)")
        #expect(devices.stderr.isEmpty)
        #expect(!devices.stdout.contains("\u{1B}["), "no colour into a pipe")
        let rows = lines(devices.stdout)
        let header = try #require(rows.first)
        #expect(header.hasPrefix("NAME  "))
        let availabilityColumn = try #require(header.range(of: "AVAILABILITY")).lowerBound.utf16Offset(in: header)
        let idColumn = try #require(header.range(of: "ID")).lowerBound.utf16Offset(in: header)
        #expect(rows.count == fleet.identities.count + 1)
        // Sorted by name, every column aligned under its header.
        for (row, identity) in zip(rows.dropFirst(), fleet.identities.sorted { $0.name < $1.name }) {
            #expect(row.hasPrefix(identity.name + " "), "\(devices.stdout)")
            let utf16 = Array(row.utf16)
            #expect(
                String(decoding: utf16.dropFirst(idColumn).prefix(identity.devId.utf16.count), as: UTF16.self)
                    == identity.devId)
            #expect(
                String(decoding: utf16.dropFirst(availabilityColumn), as: UTF16.self) == "online", "\(devices.stdout)")
        }

        let json = try await rig.cli(["devices", "--json"])
        #expect(json.status == 0)
        let array = try jsonArray(json.stdout)
        #expect(Set(array.compactMap { $0["friendly_name"] as? String }) == Set(fleet.identities.map(\.name)))
        #expect(Set(array.compactMap { $0["id"] as? String }) == Set(fleet.identities.map(\.devId)))
        #expect(array.allSatisfy { $0["availability"] as? String == "online" }, "\(json.stdout)")
        let diffuser = fleet.identities[2]
        #expect(array.first { $0["id"] as? String == diffuser.devId }?["profile"] as? String == "aroma-diffuser-modern")
        expectNoKeys([devices, json], fleet)
        await rig.shutdown()
    }

    @Test(
        "set changes the bulb and prints the confirmed state; a bad value fails naming the field; get shows it; monitor sees the change"
    )
    func setGetMonitor() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 43)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")

        let set = try await rig.cli(["set", "desk", "state=ON", "brightness=40", "color_temp=2700"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr.isEmpty)
        let confirmed = keyValues(set.stdout)
        #expect(confirmed["state"] == "ON", "\(set.stdout)")
        #expect(confirmed["brightness"] == "40", "\(set.stdout)")
        #expect(confirmed["color_temp"] == "2700", "\(set.stdout)")
        // The simulated bulb itself is on (DP 20) at 40 % (DP 22 runs 10–1000).
        let dps = try #require(await fleet.state(of: desk.devId))
        #expect(dps[DataPointID(20)!] == .bool(true))
        #expect(dps[DataPointID(22)!] == .value(406))

        let tooBright = try await rig.cli(["set", "desk", "brightness=140"])
        #expect(expectOneLineError(tooBright).contains("brightness"), "\(tooBright.stderr)")
        #expect(await fleet.state(of: desk.devId)?[DataPointID(22)!] == .value(406), "the bulb did not change")

        let get = try await rig.cli(["get", "desk"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(keyValues(get.stdout)["brightness"] == "40", "\(get.stdout)")
        let getJSON = try await rig.cli(["get", "desk", "--json"])
        #expect(getJSON.status == 0, "\(getJSON.stderr)")
        let state = try jsonObject(getJSON.stdout)
        #expect(state["brightness"] as? Int == 40)
        #expect(state["state"] as? String == "ON")
        let nobody = try await rig.cli(["get", "nobody"])
        let nobodyLine = expectOneLineError(nobody)
        #expect(nobodyLine.contains("no device named \"nobody\""), "\(nobodyLine)")
        #expect(nobodyLine.contains("desk"), "it lists the paired devices: \(nobodyLine)")

        // monitor prints the two retained messages (desk's state and availability) first,
        // which shows it is subscribed, then the change `set` makes; --count 3 ends it.
        // --seconds bounds it should the change never come.
        _ = try await rig.observer.wait(for: "youll/desk/availability") { $0.json?["state"]?.string == "online" }
        let ((monitored, dimmer), monitorStatus) = try await ChildProcess.streamingLines(
            try CLIRunner.binary().path,
            ["monitor", "--retained", "--json", "--count", "3", "--seconds", "60", "--config", rig.configPath],
            environment: rig.cleanEnvironment()
        ) { output, _ in
            let firstLine = try #require(try await output.next(), "monitor printed nothing")
            let dimmer = try await rig.cli(["set", "desk", "brightness=25"])
            var monitored = [firstLine]
            while let line = try await output.next() { monitored.append(line) }
            return (monitored, dimmer)
        }
        #expect(dimmer.status == 0, "\(dimmer.stderr)")
        #expect(monitorStatus == 0)
        #expect(monitored.count == 3, "\(monitored)")
        let messages = try monitored.map { try jsonObject($0) }
        #expect(messages.prefix(2).allSatisfy { $0["retained"] as? Bool == true }, "\(monitored)")
        let change = try #require(messages.last)
        #expect(change["topic"] as? String == "youll/desk", "\(monitored)")
        #expect(change["retained"] == nil)
        #expect((change["payload"] as? [String: Any])?["brightness"] as? Int == 25, "\(monitored)")
        expectNoKeys([paired, set, tooBright, get, getJSON, nobody, dimmer], fleet)
        await rig.shutdown()
    }

    @Test("rename moves the device to its new name; refresh and rekey with the right key succeed; remove forgets it")
    func renameRefreshRekeyRemove() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 44)
        defer { fleet.stop() }
        let desk = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", desk.devId, "--name", "desk"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")
        _ = try await rig.observer.wait(for: "youll/desk") { !$0.payload.isEmpty }

        let renamed = try await rig.cli(["rename", "desk", "study"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout == "renamed desk to study\n")
        let study = try await rig.cli(["get", "study", "--json"])
        #expect(study.status == 0, "\(study.stderr)")
        #expect(try jsonObject(study.stdout)["state"] != nil, "\(study.stdout)")
        let old = try await rig.cli(["get", "desk"])
        #expect(expectOneLineError(old).contains("no device named \"desk\""), "\(old.stderr)")

        let refresh = try await rig.cli(["refresh", "study"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(refresh.stdout == "asked study (\(desk.devId)) for all its values\n")

        let rekey = try await rig.cli(["rekey", "study"], environment: ["YOULL_LOCAL_KEY": desk.localKey])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout == "new local key verified and stored for study (\(desk.devId))\n")
        // Still driven with the stored key.
        let set = try await rig.cli(["set", "study", "brightness=70"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(await fleet.state(of: desk.devId)?[DataPointID(22)!] == .value(703))

        let removed = try await rig.cli(["remove", "study", "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed study (\(desk.devId))\n")
        let listed = try await rig.cli(["devices", "--json"])
        #expect(listed.status == 0)
        #expect(try jsonArray(listed.stdout).isEmpty, "\(listed.stdout)")
        let table = try await rig.cli(["devices"])
        #expect(table.status == 0)
        #expect(table.stdout.isEmpty)
        #expect(table.stderr.contains("no devices are paired"))
        let gone = try await rig.cli(["get", "study"])
        #expect(expectOneLineError(gone).contains("no devices are paired"), "\(gone.stderr)")
        expectNoKeys([paired, renamed, study, old, refresh, rekey, set, removed, listed, table, gone], fleet)
        await rig.shutdown()
    }

    @Test(
        "backup while running is private; restore refuses while the daemon runs; with it stopped the CLI says so, restore works and the devices come back"
    )
    func backupRestoreStopped() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 2, seed: 45)
        defer { fleet.stop() }
        let imported = try await rig.cli(["pair", "import", try writeDevicesJSON(rig, fleet)])
        #expect(imported.status == 0, "\(imported.stdout)\n\(imported.stderr)")

        let file = rig.directory.appendingPathComponent("youll.backup").path
        let backup = try await rig.cli(["backup", file])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.hasPrefix("backed up \(rig.stateDirectory) to \(file) ("), "\(backup.stdout)")
        #expect(backup.stderr.contains("keep it private"))
        var info = stat()
        #expect(stat(file, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)

        // A change after the backup, which the restore undoes.
        let second = fleet.identities[1]
        let removed = try await rig.cli(["remove", second.name, "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")

        let refused = try await rig.cli(["restore", file])
        #expect(expectOneLineError(refused).contains("the daemon is running"), "\(refused.stderr)")

        #expect(await rig.stopDaemon() == 0)
        let stopped = try await rig.cli(["devices"])
        #expect(
            expectOneLineError(stopped).hasPrefix("error: the daemon is not running (youll/bridge/state is offline)"),
            "\(stopped.stderr)")
        #expect(stopped.stderr.contains("youll-devices serve"))
        let stoppedSet = try await rig.cli(["set", fleet.identities[0].name, "state=OFF"])
        #expect(expectOneLineError(stoppedSet).contains("the daemon is not running"), "\(stoppedSet.stderr)")

        let restored = try await rig.cli(["restore", file])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(
            restored.stdout.hasPrefix(
                "restored \(rig.stateDirectory) from \(file); start the daemon to use it\n"
                    + "the state it replaced is kept in \(rig.stateDirectory)/state.sqlite.replaced-"),
            "\(restored.stdout)")

        try await rig.startDaemon()
        let listed = try await rig.cli(["devices", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let array = try jsonArray(listed.stdout)
        #expect(Set(array.compactMap { $0["id"] as? String }) == Set(fleet.identities.map(\.devId)), "\(listed.stdout)")
        #expect(Set(array.compactMap { $0["friendly_name"] as? String }) == Set(fleet.identities.map(\.name)))
        // The restored device is driven again with its restored key.
        let set = try await rig.cli(["set", second.name, "state=ON", "brightness=40"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(await fleet.state(of: second.devId)?[DataPointID(22)!] == .value(406))
        expectNoKeys([imported, backup, removed, refused, stopped, stoppedSet, restored, listed, set], fleet)
        await rig.shutdown()
    }

    @Test("doctor against the rig's broker says the daemon is running, and fails only if another check fails")
    func doctor() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let profiles = DaemonRig.repository.appendingPathComponent("devices").path
        let result = try await rig.cli(["doctor"], environment: ["YOULL_PROFILES_DIR": profiles])
        let output = lines(result.stdout)
        #expect(output.contains("ok    broker    \(rig.broker.url) reachable, authorised"), "\(result.stdout)")
        #expect(output.contains("ok    daemon    running (youll/bridge/state is online)"), "\(result.stdout)")
        #expect(output.contains { $0.hasPrefix("ok    profiles  ") }, "\(result.stdout)")
        #expect(
            output.contains("ok    state     \(rig.stateDirectory) (mode 0700), state.sqlite (mode 0600)"),
            "\(result.stdout)")
        let failed = output.filter { $0.hasPrefix("fail") }
        #expect(result.status == (failed.isEmpty ? 0 : 1), "\(result.stdout)\n\(result.stderr)")
        #expect(failed.isEmpty, "nothing should fail on a machine that runs the daemon: \(failed)")

        #expect(await rig.stopDaemon() == 0)
        let stopped = try await rig.cli(["doctor"], environment: ["YOULL_PROFILES_DIR": profiles])
        #expect(
            lines(stopped.stdout).contains("warn  daemon    the daemon is not running (youll/bridge/state is offline)"),
            "\(stopped.stdout)")
        await rig.shutdown()
    }
}
