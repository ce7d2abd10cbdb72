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
        FileHandle.standardError.write(Data("error: \(oneLine(error))\n".utf8))
        throw ExitCode(1)
    }
}

/// An error's text on one line: newlines from any source would break "one clear line".
func oneLine(_ error: any Error) -> String {
    let text = (error as? BridgeClientError)?.userMessage ?? "\(error)"
    return text.split(whereSeparator: \.isNewline).joined(separator: " ")
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
