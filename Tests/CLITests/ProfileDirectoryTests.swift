import Foundation
import LocalBroker
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the real binary (through a symlink found on `$PATH`, from a folder outside the checkout)
/// to check where it looks for device profiles; one run talks to a real mosquitto (`LocalBroker`).
@Suite("Profile folders of the CLI")
struct ProfileDirectoryTests {
    /// A temporary folder with a `youll-devices` symlink to the built binary, and a home of its own.
    struct Sandbox {
        let root: URL
        var bin: URL { root.appendingPathComponent("bin") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("youll-profiles-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("bin"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("home"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("bin/youll-devices"), withDestinationURL: try CLIRunner.binary())
        }

        /// `youll-devices ARGUMENTS` as a shell runs it: looked up on `$PATH`, so `argv[0]` has no folder.
        func run(_ arguments: String) async throws -> CLIRunner.Result {
            var environment = ProcessInfo.processInfo.environment
            for key in ["YOULL_PROFILES", "YOULL_PROFILES_DIR", "XDG_CONFIG_HOME"] {
                environment.removeValue(forKey: key)
            }
            environment["HOME"] = root.appendingPathComponent("home").path
            environment["PATH"] = bin.path + ":/usr/bin:/bin"
            let output = try await ChildProcess.run(
                "/bin/sh", ["-c", "cd \(root.path) && exec youll-devices \(arguments)"], environment: environment)
            return CLIRunner.Result(status: output.status ?? -1, stdout: output.stdout, stderr: output.stderr)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test("a binary built in the checkout and run from $PATH elsewhere finds the checkout's devices/")
    func checkoutFromPath() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let broker = try await LocalBroker.started()
        defer { broker.stop() }
        let command =
            "cd \(sandbox.root.path) && exec env -u YOULL_PROFILES -u XDG_CONFIG_HOME HOME=\(sandbox.root.path)/home "
            + "PATH=\(sandbox.bin.path):/usr/bin:/bin youll-devices simulate --lights 1 --diffusers 1 "
            + "--broker \(broker.url) --devices-json \(sandbox.root.path)/devices.json 2>&1"
        _ = try await ChildProcess.streamingLines("/bin/sh", ["-c", command]) { lines, signal in
            let banner = try await lines.next() ?? ""
            try? signal(SIGTERM)
            #expect(banner.hasPrefix("simulating 2 devices"), "\(banner)")
        }
    }

    @Test("no profiles at all says where it looked and how to name the folder")
    func emptyProfileList() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let empty = sandbox.root.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try await sandbox.run("simulate --lights 1 --profiles \(empty.path)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("no device profiles found; looked in \(empty.path)"), "\(result.stderr)")
        #expect(result.stderr.contains("--profiles DIR"), "\(result.stderr)")
        #expect(result.stderr.contains("YOULL_PROFILES"), "\(result.stderr)")
        #expect(result.stderr.contains("profiles.installed"), "\(result.stderr)")
    }
}
