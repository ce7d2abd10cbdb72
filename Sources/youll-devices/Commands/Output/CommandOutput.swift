import ArgumentParser
import Foundation
import Gateway
import TuyaCore

/// Runs an async command body with the promise every command makes: any error becomes
/// one `error: …` line on stderr and exit status 1 (the async twin of `reportingErrors`).
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        writeError(error)
        throw ExitCode((error as? CLIError)?.exitCode ?? 1)
    }
}

/// Whether the command line asked for `--json`: errors are then a JSON object too.
let jsonRequested = CommandLine.arguments.dropFirst().contains("--json")

/// `error: …` on standard error, or under `--json` one object `{"error": …}` on its own
/// line (issue 14 item 18: scripts read one shape).
func writeError(_ error: any Error) {
    writeErrorLine((error as? BridgeClientError)?.userMessage ?? "\(error)")
}

/// `text` on one line as `writeError` prints it: `error: …`, or the JSON object under `--json`.
func writeErrorLine(_ message: String) {
    let text = oneLine(message)
    let line =
        jsonRequested ? BridgeJSON.text(.object(["error": .string(text)])) : "error: \(text)"
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Text on one line: newlines from any source would break "one clear line".
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}

/// Prints a JSON value on one line, for `--json` output that scripts read line by line.
func printJSONLine(_ value: JSONValue) {
    print(BridgeJSON.text(value))
}

/// Writes one line to standard error (progress and notes that must not mix into `--json`).
func printNote(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// A JSON value as a person reads it in a `key  value` list: strings bare, the rest as JSON.
func humanText(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text
    case .null: "-"
    default: BridgeJSON.text(value)
    }
}
