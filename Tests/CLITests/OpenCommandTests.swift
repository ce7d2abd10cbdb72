import Foundation
import Storage
import Testing
import TuyaCore
import YoullTestSupport

/// Real parts: the built `youll-devices` binary and a real SQLite state directory, with no
/// daemon and no broker: `open --dry-run` resolves in-process.
@Suite("youll-devices open --dry-run")
struct OpenCommandTests {
    static let devId = "bf11aa22bb33cc44dd"

    /// A state directory with one paired diffuser, and a configuration file pointing at it.
    static func scratch() async throws -> (config: String, state: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("youll-open-\(UUID().uuidString)")
        let state = root.appendingPathComponent("state")
        let database = try GatewayDatabase.open(directory: state)
        let device = TuyaDevice(
            id: DeviceID(devId)!, name: "aroma", profileID: "aroma-diffuser-modern", category: .diffuser,
            transport: .mqtt)
        try await database.saveDevice(device, localKey: LocalKey("0123456789abcdef"))
        try database.close()
        let profiles = Repository.devicesDirectory.path
        let config = root.appendingPathComponent("config.yaml")
        try """
        state_directory: \(state.path)
        profiles:
          installed: \(profiles)
          user: /nonexistent
        deep_links:
          universal_link_hosts: [links.example.com]
        timer:
          presets:
            evening:
              diffuser: {mist: true}
        """.write(to: config, atomically: true, encoding: .utf8)
        return (config.path, state)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a maintenance link of a paired diffuser proceeds, from the local database, without a daemon")
    func proceeds() async throws {
        let (config, state) = try await Self.scratch()
        defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
        let before = try Data(contentsOf: state.appendingPathComponent("state.sqlite"))
        for url in [
            "youll://tuya/maintenance?type=refill&device=\(Self.devId)",
            "https://links.example.com/tuya/maintenance?type=refill&device=\(Self.devId)",
        ] {
            let result = try await CLIRunner.run(["open", "--dry-run", "--json", "--config", config, url])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try Self.json(result.stdout)
            #expect(object["resolution"] as? String == "proceed")
            let destination = try #require(object["destination"] as? [String: Any])
            #expect(destination["kind"] as? String == "tuya_maintenance")
            #expect(destination["device"] as? String == Self.devId)
            #expect(object["url"] as? String == "youll://tuya/maintenance?type=refill&device=\(Self.devId)")
        }
        // Read-only: the database file is untouched.
        #expect(try Data(contentsOf: state.appendingPathComponent("state.sqlite")) == before)
    }

    @Test(
        "a timer link may name a preset from the config's timer.presets as well as a built-in one; others are refused")
    func configuredPreset() async throws {
        let (config, state) = try await Self.scratch()
        defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
        for preset in ["evening", "calm"] {
            let result = try await CLIRunner.run([
                "open", "--dry-run", "--json", "--config", config, "youll://timer?preset=\(preset)&minutes=10",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try Self.json(result.stdout)
            #expect(object["resolution"] as? String == "proceed", "\(preset): \(object)")
            #expect((object["destination"] as? [String: Any])?["preset"] as? String == preset)
        }
        let unknown = try await CLIRunner.run([
            "open", "--dry-run", "--json", "--config", config, "youll://timer?preset=zen&minutes=10",
        ])
        #expect(try Self.json(unknown.stdout)["field"] as? String == "preset", "\(unknown.stdout)")
    }

    @Test("a link may name the device by its friendly name; it resolves to the device's id")
    func friendlyName() async throws {
        let (config, state) = try await Self.scratch()
        defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
        let result = try await CLIRunner.run([
            "open", "--dry-run", "--json", "--config", config, "youll://tuya/maintenance?type=refill&device=aroma",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try Self.json(result.stdout)
        #expect(object["resolution"] as? String == "proceed", "\(object)")
        #expect((object["destination"] as? [String: Any])?["device"] as? String == Self.devId)
    }

    @Test("an unpaired device is a gate that names the pair command; a type the profile lacks is a field error")
    func gatesAndFieldErrors() async throws {
        let (config, state) = try await Self.scratch()
        defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
        let gated = try await CLIRunner.run([
            "open", "--dry-run", "--json", "--config", config, "youll://tuya/devices/bf99999999999999zz",
        ])
        #expect(gated.status == 0)
        let gate = try Self.json(gated.stdout)
        #expect(gate["resolution"] as? String == "gated")
        #expect((gate["action"] as? String)?.contains("youll-devices pair mqtt bf99999999999999zz") == true)

        let unknownType = try await CLIRunner.run([
            "open", "--dry-run", "--json", "--config", config,
            "youll://tuya/maintenance?type=descale&device=\(Self.devId)",
        ])
        #expect(unknownType.status == 1)
        let error = try Self.json(unknownType.stdout)
        #expect(error["kind"] as? String == "validation_failed")
        #expect(error["field"] as? String == "type")
    }

    @Test("hostile links exit 1 with the reason, in JSON and in words, and never crash")
    func hostile() async throws {
        let (config, state) = try await Self.scratch()
        defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
        let links = [
            "", "javascript:alert(1)", "youll://user@tuya/pair", "youll://tuya/pair#x", "youll://tuya/%zz",
            "youll://tuya/maintenance?type=refill&type=clean&device=\(Self.devId)",
            "youll://tuya/pair\u{7}", "https://evil.example.net/tuya/pair", "youll://tuya/nowhere",
            "youll://timer?preset=calm&minutes=9999", "youll://" + String(repeating: "a", count: 3000),
        ]
        for link in links {
            let json = try await CLIRunner.run(["open", "--dry-run", "--json", "--config", config, link])
            #expect(json.status == 1, "\(link.prefix(60))")
            #expect(try Self.json(json.stdout)["resolution"] as? String == "error")
            let words = try await CLIRunner.run(["open", "--dry-run", "--config", config, link])
            #expect(words.status == 1)
            #expect(words.stderr.hasPrefix("error: "), "\(words.stderr)")
        }
    }
}
