import Foundation
import LocalBroker
import Storage
import Testing
import YoullTestSupport

/// Real parts: the built `youll-devices` binary and a private mosquitto (LocalBroker), with
/// the configuration, state and profile folders in a temporary directory.
@Suite("youll-devices doctor")
struct DoctorCommandTests {
    static let kernelHasBluetooth = FileManager.default.fileExists(atPath: "/sys/class/bluetooth")

    /// A clean environment: no systemd variables, no YOULL_* from the caller, XDG folders in `home`.
    private func run(_ arguments: [String], home: URL, _ extra: [String: String]) async throws -> ChildProcess.Output {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("YOULL_") && !["INVOCATION_ID", "STATE_DIRECTORY", "NO_COLOR"].contains($0.key)
        }
        environment["HOME"] = home.path
        environment["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["YOULL_PROFILES_DIR"] = Self.shippedProfiles
        environment.merge(extra) { $1 }
        let path = try CLIRunner.binary().path
        let env = environment
        return try await ChildProcess.run(path, ["doctor"] + arguments, environment: env)
    }

    private static var shippedProfiles: String {
        Repository.devicesDirectory.path
    }

    private func temporaryHome() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("youll-doctor-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test("with a reachable broker: broker ok, daemon not running, BLE explained, exit 0, no colour in a pipe")
    func healthyMachine() async throws {
        let broker = try await LocalBroker.started()
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await run([], home: home, ["YOULL_MQTT_URL": broker.url])
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let output = lines(result.stdout)
        #expect(output.contains("ok    broker    \(broker.url) reachable, authorised"))
        #expect(output.contains("ok    topics    a message published under youll/ came back"))
        // The test broker is open: anyone may connect and write the bridge's requests.
        #expect(
            output.contains {
                $0.hasPrefix("warn  access    the broker accepts clients without credentials, and they can publish")
            }, "\(result.stdout)")
        #expect(output.contains("warn  daemon    the daemon is not running (nothing retained on youll/bridge/state)"))
        #expect(
            output.contains(
                "                fix: start it with `systemctl start youll-devices` or `youll-devices serve`"))
        let ble = try #require(output.first { $0.hasPrefix("warn  ble ") })
        if !Self.kernelHasBluetooth {
            #expect(ble.contains("the kernel has no Bluetooth support"))
            let fix = try #require(output.firstIndex(of: ble).map { output[$0 + 1] })
            #expect(fix.contains("fix: BLE needs a kernel with CONFIG_BT"))
        }
        #expect(
            output.contains(
                "warn  state     \(home.path)/state/youll-devices does not exist; it will be created on first start"))
        #expect(output.contains { $0.hasPrefix("ok    profiles  ") })
        #expect(!result.stdout.contains("\u{1B}["))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("state").path))
    }

    @Test("a binary built in a source checkout finds the checkout's profiles, as serve does (issue 15 item 10)")
    func profilesFromTheCheckout() async throws {
        let broker = try await LocalBroker.started()
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        // The installed folder is empty: only the checkout's devices/ can supply profiles.
        let empty = home.appendingPathComponent("no-profiles")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try await run([], home: home, ["YOULL_MQTT_URL": broker.url, "YOULL_PROFILES_DIR": empty.path])
        let line = try #require(lines(result.stdout).first { $0.hasPrefix("ok    profiles  ") }, "\(result.stdout)")
        #expect(line.contains(Self.shippedProfiles), "\(line)")
        #expect(line.contains(empty.path), "\(line)")
    }

    @Test("with nothing listening on the broker port: broker fails, exit 1, one summary line on stderr")
    func brokerDown() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await run([], home: home, ["YOULL_MQTT_URL": "mqtt://127.0.0.1:\(port)"])
        #expect(result.status == 1)
        let output = lines(result.stdout)
        #expect(
            output.contains(
                "fail  broker    mqtt://127.0.0.1:\(port): connection refused by 127.0.0.1:\(port): "
                    + "is mosquitto running on 127.0.0.1:\(port)?"))
        #expect(!output.contains { $0.dropFirst(6).hasPrefix("daemon ") })
        #expect(lines(result.stderr) == ["doctor: 1 check failed (broker); see the fix lines above"])
    }

    @Test("--json with the broker down: the array on stdout, and the failure one JSON object on stderr")
    func brokerDownAsJSON() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await run(["--json"], home: home, ["YOULL_MQTT_URL": "mqtt://127.0.0.1:\(port)"])
        #expect(result.status == 1)
        #expect(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) is [[String: Any]])
        #expect(lines(result.stderr).count == 1, "\(result.stderr)")
        let error = try #require(try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
        #expect(error["error"] as? String == "doctor: 1 check failed (broker); see each failed check's fix")
    }

    @Test("a configuration file with an unknown key fails naming the key path and line")
    func badKey() async throws {
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("config.yaml")
        try "base_topic: youll\nmqtt:\n  urll: mqtt://127.0.0.1:1883\n".write(
            to: file, atomically: true, encoding: .utf8)
        let result = try await run(["--config", file.path], home: home, [:])
        #expect(result.status == 1)
        let first = try #require(lines(result.stdout).first)
        #expect(first.hasPrefix("fail  config  \(file.path):3: mqtt.urll: unknown key 'urll'; did you mean 'url'?"))
        #expect(lines(result.stderr) == ["doctor: 1 check failed (config); see the fix lines above"])
    }

    @Test("--json prints an array of {check, status, detail, fix}; a wrong password is never printed")
    func jsonWithWrongPassword() async throws {
        let broker = try await LocalBroker.started(credentials: .init(username: "ada", password: "right-horse-battery"))
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await run(
            ["--json"], home: home,
            ["YOULL_MQTT_URL": broker.url, "YOULL_MQTT_USERNAME": "ada", "YOULL_MQTT_PASSWORD": "wrong-staple-99"])
        #expect(result.status == 1)
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let brokerCheck = try #require(array.first { $0["check"] as? String == "broker" })
        #expect(brokerCheck["status"] as? String == "fail")
        #expect((brokerCheck["detail"] as? String)?.contains("not authorised") == true)
        #expect(
            Set(array.compactMap { $0["check"] as? String }) == [
                "config", "broker", "ble", "lan", "state", "profiles", "clock",
            ])
        for object in array { #expect(Set(object.keys) == ["check", "status", "detail", "fix"]) }
        #expect(!result.stdout.contains("wrong-staple-99"))
        #expect(!result.stderr.contains("wrong-staple-99"))
    }

    @Test("doctor reports maintenance alerts the webhook did not take, without the URL's token")
    func failingWebhook() async throws {
        let broker = try await LocalBroker.started()
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let state = home.appendingPathComponent("state-dir")
        let database = try GatewayDatabase.open(directory: state)
        try await database.enqueueAlert(id: "bf1:refill:due:1", payload: "{}")
        _ = try await database.recordAlertFailure("bf1:refill:due:1", reason: "HTTP 503")
        _ = try await database.recordAlertFailure("bf1:refill:due:1", reason: "HTTP 503")
        try database.close()
        let file = home.appendingPathComponent("config.yaml")
        try """
        state_directory: \(state.path)
        mqtt:
          url: \(broker.url)
        maintenance:
          webhook:
            url: https://hooks.example.com/alert?token=s3cret-t0ken
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await run(["--config", file.path], home: home, [:])
        let output = lines(result.stdout)
        #expect(
            output.contains(
                "warn  webhook   1 maintenance alert was not delivered (the oldest: HTTP 503, 2 attempts); the daemon keeps retrying"
            ), "\(result.stdout)")
        #expect(!result.stdout.contains("s3cret-t0ken"))
    }

    @Test("an empty LAN scan is explained: the discovery port another program holds is named, with how to find it")
    func lanPortHeld() async throws {
        let held = try HeldUDPPort()
        defer { held.close() }
        let free = try LocalBroker.freeLoopbackPort()
        let home = try temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("config.yaml")
        try """
        mqtt:
          url: mqtt://127.0.0.1:\(try LocalBroker.freeLoopbackPort())
        lan:
          bind: 127.0.0.1
          discovery_ports: [\(held.port), \(free)]
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await run(["--config", file.path, "--json", "--lan-listen", "0.5"], home: home, [:])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let lan = try #require(array.first { $0["check"] as? String == "lan" })
        #expect(lan["status"] as? String == "warn")
        #expect(
            lan["detail"] as? String
                == "no Tuya device heard: UDP \(held.port): in use by another program; devices announcing there are not discovered",
            "\(lan)")
        #expect((lan["fix"] as? String)?.contains("stop the program holding UDP \(held.port)") == true)

        let refused = try await run(["--lan-listen", "500"], home: home, [:])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--lan-listen 500.0 is outside 0...120 seconds"), "\(refused.stderr)")
    }
}
