import Foundation
import Testing

/// Issue 14 item 18: under `--json` even the errors argument-parser finds itself (a bad
/// option value, an unknown flag, a missing argument) are one JSON object on stderr.
@Suite("CLI usage errors under --json")
struct JSONUsageErrorTests {
    /// The one object on stderr, or a failed expectation naming what was printed instead.
    private func errorObject(_ stderr: String) throws -> [String: Any] {
        #expect(stderr.filter { $0 == "\n" }.count == 1, "one line: \(stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(stderr.utf8)) as? [String: Any], "\(stderr)")
    }

    @Test("a bad option value under --json is a JSON error naming the option and the value, with a usage exit code")
    func badValue() async throws {
        let result = try await CLIRunner.run(["get", "lamp", "--json", "--timeout", "abc"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let message = try #require(try errorObject(result.stderr)["error"] as? String)
        #expect(message.contains("--timeout"))
        #expect(message.contains("abc"))
    }

    @Test("an unknown flag and a missing argument under --json are JSON errors too")
    func unknownFlagAndMissingArgument() async throws {
        let unknown = try await CLIRunner.run(["timer", "status", "--json", "--nosuch"])
        #expect(unknown.status == 64)
        let unknownMessage = try #require(try errorObject(unknown.stderr)["error"] as? String)
        #expect(unknownMessage.contains("--nosuch"))

        let missing = try await CLIRunner.run(["rename", "--json"])
        #expect(missing.status == 64)
        let missingMessage = try #require(try errorObject(missing.stderr)["error"] as? String)
        #expect(missingMessage.lowercased().contains("missing"))
    }

    @Test("without --json a usage error stays argument-parser's text with the usage line")
    func plainStaysText() async throws {
        let result = try await CLIRunner.run(["get", "lamp", "--timeout", "abc"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("Usage:"))
    }

    @Test("--help under --json still prints the help, with success")
    func helpStillHelps() async throws {
        let result = try await CLIRunner.run(["get", "--help", "--json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE:"))
    }

    @Test(
        "an option value the command checks itself is a usage mistake too: status 64 and a JSON error naming it",
        arguments: [
            ["devices", "--timeout", "0"], ["monitor", "--count", "0"], ["pair", "permit", "--seconds", "0"],
            ["timer", "history", "--limit", "0"], ["timer", "start", "--minutes", "nan"],
        ])
    func checkedOptionValues(arguments: [String]) async throws {
        let result = try await CLIRunner.run(arguments + ["--json", "--config", "/nonexistent/config.yaml"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let message = try #require(try errorObject(result.stderr)["error"] as? String)
        let option = try #require(arguments.first { $0.hasPrefix("--") })
        #expect(message.contains(option), "\(message)")
    }

    @Test("pair import refuses a device file that never ends, at once, instead of reading it into memory")
    func importFromDevZero() async throws {
        let result = try await CLIRunner.run(["pair", "import", "/dev/zero", "--json"])
        #expect(result.status == 1)
        let message = try #require(try errorObject(result.stderr)["error"] as? String)
        #expect(message.contains("/dev/zero: not a regular file"))
        // A symbolic link to a regular file is read through (it then fails on its content).
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("youll-link-\(UUID().uuidString).json")
        let target = link.deletingPathExtension().appendingPathExtension("target")
        try Data("[]".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        defer { for url in [link, target] { try? FileManager.default.removeItem(at: url) } }
        let linked = try await CLIRunner.run(["pair", "import", link.path])
        #expect(linked.status == 1)
        #expect(linked.stderr.contains("no device with a local key to import"), "\(linked.stderr)")
        let missing = try await CLIRunner.run(["pair", "import", "/nonexistent/devices.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/devices.json: no such file"))
    }
}
