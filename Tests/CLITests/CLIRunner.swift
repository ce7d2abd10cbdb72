import Foundation
import LocalBroker

/// Runs the real `youll-devices` binary that `swift build` put next to the test bundle.
/// Run through swift-subprocess (`ChildProcess.run`), not Foundation's `Process`, whose
/// `readDataToEndOfFile` was seen to crash on an interrupted read (EINTR) while other
/// tests started and stopped child processes.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func binary() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("youll-devices")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CLIRunnerError(
            message: "youll-devices binary not found near \(CommandLine.arguments[0]); run swift build first")
    }

    /// Waits for the binary without holding one of Swift concurrency's few cooperative
    /// threads (two on a 2-core machine): swift-subprocess awaits its exit, so a test waiting
    /// out a 9 s demo does not starve the async tests running beside it.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "YOULL_LOCAL_KEY")
        env.merge(environment) { $1 }
        let path = try binary().path
        let finalEnvironment = env
        let output = try await ChildProcess.run(path, arguments, environment: finalEnvironment)
        return Result(status: output.status ?? -1, stdout: output.stdout, stderr: output.stderr)
    }
}

struct CLIRunnerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
