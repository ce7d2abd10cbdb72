import ArgumentParser
import Foundation

/// A failure the CLI reports as one line on stderr with exit status 1, or 64 (`EX_USAGE`)
/// for a usage mistake such as a bad option value, as the README promises scripts.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1

    init(_ message: String) {
        self.message = message
    }

    /// A mistake in the command line itself (an option's value out of range, two options
    /// that exclude each other): exit status 64, as argument-parser's own checks.
    static func usage(_ message: String) -> CLIError {
        var error = CLIError(message)
        error.exitCode = 64
        return error
    }

    var description: String { message }
}

/// Runs `body`, turning any error into one `error: …` line on stderr and exit status 1,
/// as every command promises (no stack traces, no usage dump for bad input).
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        writeError(error)
        throw ExitCode((error as? CLIError)?.exitCode ?? 1)
    }
}
