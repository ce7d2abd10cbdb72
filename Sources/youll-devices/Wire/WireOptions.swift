import ArgumentParser
import Foundation
import TuyaCore
import TuyaWire

/// Options every `wire` command shares. Everything is validated in `run()` so bad input
/// gives one line and exit status 1, never a usage dump.
struct KeyOptions: ParsableArguments {
    @Option(name: .long, help: "The device's 16-character local key (or set YOULL_LOCAL_KEY).")
    var key: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    /// The key from `--key`, else `$YOULL_LOCAL_KEY` (keeps it out of shell history).
    func localKey() throws -> String {
        guard let key = key ?? ProcessInfo.processInfo.environment["YOULL_LOCAL_KEY"], !key.isEmpty else {
            throw CLIError.usage("--key: a local key is required (16 characters), or set YOULL_LOCAL_KEY")
        }
        guard key.utf8.count == 16 else {
            throw CLIError.usage("--key: a local key is 16 characters, got \(key.utf8.count)")
        }
        return key
    }
}

/// The body fields `wire encode mqtt` and `wire encode lan` share: sequence, DPs, devId, time.
struct BodyOptions: ParsableArguments {
    @Option(name: .long, help: "Sequence number (default 1).")
    var seq: String?

    @Option(name: .long, help: "The DPs as a JSON object, e.g. '{\"20\":true,\"22\":500}'.")
    var dps: String?

    @Option(name: .long, help: "devId for a protocol-4 report or a LAN 3.1–3.3 body.")
    var devId: String?

    @Option(name: .long, help: "The \"t\" field, unix seconds (default: now).")
    var time: String?

    /// `--seq`, else 1.
    func sequence() throws -> UInt32 { try seq.map { try parseInteger($0, option: "--seq", as: UInt32.self) } ?? 1 }

    /// `--time`, else now.
    func timestamp() throws -> Int64 {
        try time.map { try parseInteger($0, option: "--time", as: Int64.self) } ?? Int64(Date().timeIntervalSince1970)
    }
}

/// Parses a `--dps` JSON object (`{"20":true,"22":500}`) into DP ids and JSON values,
/// with errors naming the key at fault.
func parseDPs(_ text: String) throws -> [String: JSONValue] {
    let value: JSONValue
    do {
        value = try CompactJSON.decode(Array(text.utf8))
    } catch {
        throw CLIError.usage("--dps: \(error)")
    }
    guard let object = value.objectValue else {
        throw CLIError.usage("--dps: expected a JSON object like {\"20\":true}")
    }
    for key in object.keys where DataPointID(jsonKey: key) == nil {
        throw CLIError.usage("--dps: \"\(key)\" is not a DP id (1–255)")
    }
    return object
}

/// Parses a decimal or `0x` hexadecimal integer option.
func parseInteger<T: FixedWidthInteger>(_ text: String, option: String, as type: T.Type) throws -> T {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let value: T? =
        trimmed.lowercased().hasPrefix("0x") ? T(trimmed.dropFirst(2), radix: 16) : T(trimmed, radix: 10)
    guard let value else { throw CLIError.usage("\(option): \"\(text)\" is not a number in range \(T.min)...\(T.max)") }
    return value
}

/// Prints a JSON value on one line.
func printJSON(_ value: JSONValue) {
    print(String(decoding: CompactJSON.encode(value), as: UTF8.self))
}

/// Prints label/value rows with the values aligned.
func printRows(_ rows: [(String, String)]) {
    let width = rows.map(\.0.count).max() ?? 0
    for (label, value) in rows {
        print(label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
    }
}
