import Foundation
import Testing

/// `youll-devices open` carrying out timer and device links, as a user runs it: the real
/// binary against the real daemon (`serve`), a private mosquitto and a simulated light.
@Suite("youll-devices open against the daemon", .serialized, .timeLimit(.minutes(3)))
struct OpenLinkTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test(
        "a timer link starts the session (--yes without a terminal), a session link shows it as the history does, and a device link takes its friendly name"
    )
    func timerAndDeviceLinks() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(lights: 1, seed: 73)
        defer { fleet.stop() }
        let lamp = fleet.identities[0]
        let paired = try await rig.cli(
            ["pair", "mqtt", lamp.devId, "--name", "lamp"], environment: ["YOULL_LOCAL_KEY": lamp.localKey])
        #expect(paired.status == 0, "\(paired.stderr)")

        let link = "youll://timer?preset=calm&minutes=10"
        let unconfirmed = try await rig.cli(["open", link])
        #expect(unconfirmed.status == 1)
        #expect(unconfirmed.stderr.contains("starts a 10-minute calm session; add --yes"), "\(unconfirmed.stderr)")
        #expect(try await rig.cli(["timer", "status"]).stdout == "no session is running\n")

        let started = try await rig.cli(["open", "--yes", link])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stdout.hasPrefix("started session "), "\(started.stdout)")
        let status = try json(try await rig.cli(["timer", "status", "--json"]).stdout)
        #expect(status["state"] as? String == "running")
        #expect(status["preset"] as? String == "calm")
        #expect(status["remaining_seconds"] as? Double ?? 0 > 590, "\(status)")
        let id = try #require(status["id"] as? String)
        #expect(try await rig.cli(["timer", "stop", "--now"]).status == 0)

        let shown = try await rig.cli(["open", "youll://timer/sessions/\(id)"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let rows = shown.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.first == ["STARTED", "PRESET", "STATE", "LENGTH"], "\(shown.stdout)")
        #expect(rows.count == 2 && rows[1].contains("calm") && rows[1].contains("stopped"), "\(shown.stdout)")
        let missing = try await rig.cli(["open", "youll://timer/sessions/0000nosuch"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no session 0000nosuch in the history"), "\(missing.stderr)")

        let device = try await rig.cli(["open", "youll://tuya/devices/lamp"])
        #expect(device.status == 0, "\(device.stderr)")
        #expect(device.stdout.hasPrefix("device lamp\n"), "\(device.stdout)")
        await rig.shutdown()
    }
}
