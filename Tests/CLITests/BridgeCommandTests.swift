import Foundation
import LocalBroker
import Storage
import Testing

/// Real parts: the built `youll-devices` binary, a private mosquitto (LocalBroker) with no
/// daemon on it, and real state directories in temporary folders.
@Suite("youll-devices bridge commands without a daemon")
struct BridgeCommandTests {
    /// An environment that reads no configuration file of this machine.
    func environment(broker: String? = nil, state: URL? = nil) -> [String: String] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("youll-cli-home-\(UUID().uuidString)")
            .path
        var environment = [
            "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.state", "NO_COLOR": "1",
        ]
        if let broker { environment["YOULL_MQTT_URL"] = broker }
        if let state { environment["YOULL_STATE_DIR"] = state.path }
        return environment
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("youll-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("with no daemon on the broker, devices fails in one line that says how to start it")
    func noDaemon() async throws {
        let broker = try await LocalBroker.started()
        let result = try await CLIRunner.run(["devices"], environment: environment(broker: broker.url))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        // The broker has just started: the daemon may be running and not have republished yet.
        #expect(
            lines.first?.hasPrefix("error: nothing is published on youll/bridge/state since the broker started")
                == true,
            "\(result.stderr)")
        #expect(result.stderr.contains("youll-devices serve"))
    }

    @Test("an unreachable broker is named in one line with the URL")
    func noBroker() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        let result = try await CLIRunner.run(
            ["get", "lamp", "--timeout", "5"], environment: environment(broker: "mqtt://127.0.0.1:\(port)"))
        #expect(result.status == 1)
        #expect(
            result.stderr == "error: cannot reach the broker at mqtt://127.0.0.1:\(port): connection refused "
                + "(is the broker running? set mqtt.url in the configuration or YOULL_MQTT_URL)\n")
    }

    @Test("a bad set argument is refused before anything is sent")
    func badSetArgument() async throws {
        let port = try LocalBroker.freeLoopbackPort()
        let result = try await CLIRunner.run(
            ["set", "lamp", "brightness"], environment: environment(broker: "mqtt://127.0.0.1:\(port)"))
        #expect(result.status == 1)
        #expect(result.stderr == "error: \"brightness\": expected key=value, e.g. brightness=40\n")
    }

    @Test("pair mqtt with a short key fails without printing the key, as a usage mistake")
    func shortKey() async throws {
        let result = try await CLIRunner.run(
            ["pair", "mqtt", "bf01", "--key", "secret-short"], environment: environment())
        #expect(result.status == 64)
        #expect(result.stderr == "error: --key: a local key is 16 characters, got 12\n")
        #expect(!result.stderr.contains("secret-short"))
    }

    @Test("--key-file reads a short file, a pipe and an endless device boundedly, and never prints the key")
    func keyFile() async throws {
        let folder = try temporaryDirectory()
        let short = folder.appendingPathComponent("short.key")
        try "  abcde \n".write(to: short, atomically: true, encoding: .utf8)
        let empty = folder.appendingPathComponent("empty.key")
        try "".write(to: empty, atomically: true, encoding: .utf8)
        for (file, message) in [
            (short.path, "error: --key-file: a local key is 16 characters, got 5\n"),
            (empty.path, "error: --key-file: a local key is 16 characters, got 0\n"),
            ("/dev/zero", "error: --key-file: /dev/zero is over 4096 bytes; a local key is 16 characters\n"),
            (folder.appendingPathComponent("missing").path, "error: --key-file: cannot read \(folder.path)/missing\n"),
        ] {
            let result = try await CLIRunner.run(
                ["pair", "mqtt", "bf01", "--key-file", file], environment: environment())
            #expect(result.status == 1)
            #expect(result.stderr == message)
            #expect(!result.stderr.contains("abcde"))
        }
    }

    @Test(
        "backup writes a private copy, refuses to overwrite without --force, and restore refuses while the daemon holds the state"
    )
    func backupAndRestore() async throws {
        let state = try temporaryDirectory()
        let backups = try temporaryDirectory()
        try GatewayDatabase.open(directory: state).close()
        let file = backups.appendingPathComponent("youll.backup").path
        let env = environment(state: state)

        let first = try await CLIRunner.run(["backup", file], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let again = try await CLIRunner.run(["backup", file], environment: env)
        #expect(again.status == 1)
        #expect(again.stderr == "error: \(file) already exists; choose another file or add --force to overwrite it\n")
        #expect(try await CLIRunner.run(["backup", "--force", file], environment: env).status == 0)

        let lock = try GatewayDatabase.acquireDaemonLock(in: state)
        let refused = try await CLIRunner.run(["restore", file], environment: env)
        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stderr.contains("the daemon is running"))
        withExtendedLifetime(lock) {}
    }

    /// A state directory holding an empty database, and a backup of it written by the CLI.
    private func backedUpState() async throws -> (state: URL, file: String) {
        let state = try temporaryDirectory()
        let file = try temporaryDirectory().appendingPathComponent("youll.backup").path
        try GatewayDatabase.open(directory: state).close()
        let made = try await CLIRunner.run(["backup", file], environment: environment(state: state))
        #expect(made.status == 0, "\(made.stderr)")
        return (state, file)
    }

    @Test("restore puts the backup in place once the daemon is stopped")
    func restoreWhenStopped() async throws {
        let (state, file) = try await backedUpState()
        let env = environment(state: state)
        let restored = try await CLIRunner.run(["restore", file], environment: env)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("restored"))
        // The state it replaced is kept beside the new one.
        let keptLine = restored.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let prefix = "the state it replaced is kept in \(state.path)/state.sqlite.replaced-"
        #expect(keptLine.hasPrefix(prefix), "\(restored.stdout)")
        let kept = String(keptLine.dropFirst("the state it replaced is kept in ".count))
        #expect(FileManager.default.fileExists(atPath: kept), "\(kept)")
    }

    @Test("restore into a state directory with no state refuses, unless told it is a new machine")
    func restoreIntoNothing() async throws {
        let (_, file) = try await backedUpState()
        let empty = try temporaryDirectory().appendingPathComponent("fresh")
        let refused = try await CLIRunner.run(["restore", file], environment: environment(state: empty))
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: no gateway state in \(empty.path) to replace"), "\(refused.stderr)")
        #expect(refused.stderr.contains("add --new-state"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: empty.appendingPathComponent("state.sqlite").path))
        let restored = try await CLIRunner.run(
            ["restore", "--new-state", file], environment: environment(state: empty))
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(FileManager.default.fileExists(atPath: empty.appendingPathComponent("state.sqlite").path))
    }

    @Test("backup into a folder that does not exist names the folder")
    func backupMissingFolder() async throws {
        let state = try temporaryDirectory()
        try GatewayDatabase.open(directory: state).close()
        let folder = state.appendingPathComponent("no/such/folder").path
        let result = try await CLIRunner.run(
            ["backup", folder + "/youll.backup"], environment: environment(state: state))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: \(folder): no such folder; create it first"), "\(result.stderr)")
        #expect(!result.stderr.contains(".tmp"), "no temporary file named")
    }

    @Test("help texts do not repeat the defaults the help already shows")
    func helpDefaults() async throws {
        for command in [
            ["timer", "history"], ["timer", "start"], ["pair", "ble"], ["pair", "mqtt"], ["pair", "permit"],
            ["simulate"], ["monitor"], ["set"], ["open"], ["remove"], ["rekey"],
        ] {
            let help = try await CLIRunner.run(command + ["--help"])
            #expect(help.status == 0)
            // One block per option: its first line starts with "  -", continuation lines are indented deeper.
            var blocks: [String] = []
            for line in help.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("  -") {
                    blocks.append(String(line))
                } else if line.hasPrefix("     "), !blocks.isEmpty {
                    blocks[blocks.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
                }
            }
            for block in blocks {
                #expect(block.components(separatedBy: "default").count <= 2, "\(command): \(block)")
            }
        }
    }

    @Test("pair ble's help shows each example on one line")
    func pairBLEExample() async throws {
        let help = try await CLIRunner.run(["pair", "ble", "--help"])
        let examples = help.stdout.split(separator: "\n").filter { $0.contains("youll-devices pair ble ") }
        #expect(examples.count >= 2, "\(help.stdout)")
        for example in examples { #expect(example.count <= 80, "\(example)") }
        #expect(examples.contains { $0.contains("--uuid") && $0.contains("--dev-id") }, "\(help.stdout)")
    }

    @Test("backup of a state directory with no database says there is nothing to back up")
    func backupNothing() async throws {
        let state = try temporaryDirectory()
        let result = try await CLIRunner.run(
            ["backup", state.appendingPathComponent("x").path], environment: environment(state: state))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: no gateway state in \(state.path)"))
        #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("state.sqlite").path))
    }

    @Test("every command has a shell completion entry")
    func completion() async throws {
        let result = try await CLIRunner.run(["--generate-completion-script", "bash"])
        #expect(result.status == 0)
        for command in [
            "pair", "devices", "get", "set", "monitor", "rename", "remove", "rekey", "refresh", "backup", "restore",
        ] {
            #expect(result.stdout.contains(command))
        }
    }
}
