import ArgumentParser
import Foundation

/// A failure the CLI reports as one line on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
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
        throw ExitCode(1)
    }
}
