import ArgumentParser
import Foundation
import Gateway

/// Options every command that talks to the daemon shares. Values are checked in `run()`,
/// so a bad one gives one line and exit status 1, never a usage dump.
struct BridgeOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The configuration file (default: /etc/youll-devices/config.yaml, then ~/.config/youll-devices/config.yaml).",
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    @Option(
        name: .long,
        help:
            "Seconds to wait for the broker and the daemon (default: 10); pair mqtt and rekey wait this long for the device, asking it again after each 15 s pairing window."
    )
    var timeout: Double?

    /// The configuration `serve` would use, from the file and the `YOULL_*` environment.
    func loadConfiguration() throws -> GatewayConfiguration {
        let environment = ProcessInfo.processInfo.environment
        return try ConfigurationLoader.load(
            path: config, environment: environment, isService: ConfigurationLoader.isService(environment: environment))
    }

    /// `--timeout`, or `fallback` seconds.
    func waitLimit(default fallback: Double = 10) throws -> Duration {
        let seconds = timeout ?? fallback
        guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw CLIError.usage(
                "--timeout: expected a number of seconds above 0 (up to 86400), got \(timeout.map { "\($0)" } ?? "")")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Connects to the configured broker, checks the daemon is online, runs `body` and
    /// disconnects. `waitLimit` bounds each step.
    func withBridge<T>(
        waitDefault: Double = 10, _ body: (BridgeClient, Duration) async throws -> T
    ) async throws -> T {
        let limit = try waitLimit(default: waitDefault)
        let configuration = try loadConfiguration()
        let client = try BridgeClient(configuration: configuration, connectTimeout: min(limit, .seconds(10)))
        do {
            try await client.connect(timeout: limit)
            try await client.requireDaemonOnline(timeout: limit)
            let result = try await body(client, limit)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }
}

/// A device's local key from `--key`, `--key-file` or `$YOULL_LOCAL_KEY`, in that order.
/// Never printed; errors give only its length.
struct LocalKeyOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The device's 16-character local key (prefer --key-file or YOULL_LOCAL_KEY: keys in arguments end up in shell history)."
    )
    var key: String?

    @Option(
        name: .customLong("key-file"), help: "A file holding the local key (surrounding whitespace ignored).",
        completion: .file())
    var keyFile: String?

    func localKey() throws -> String {
        if key != nil, keyFile != nil { throw CLIError.usage("--key and --key-file: give only one") }
        let source: String
        let text: String
        if let key {
            (source, text) = ("--key", key)
        } else if let keyFile {
            // At most 4 KiB is read: `<(pass show lamp)` is a pipe, and /dev/zero never ends.
            guard let handle = FileHandle(forReadingAtPath: keyFile) else {
                throw CLIError("--key-file: cannot read \(keyFile)")
            }
            defer { try? handle.close() }
            let data: Data
            do {
                data = try handle.read(upToCount: 4097) ?? Data()
            } catch {
                throw CLIError("--key-file: cannot read \(keyFile)")
            }
            guard data.count <= 4096 else {
                throw CLIError("--key-file: \(keyFile) is over 4096 bytes; a local key is 16 characters")
            }
            (source, text) = (
                "--key-file", String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            )
        } else if let environment = ProcessInfo.processInfo.environment["YOULL_LOCAL_KEY"], !environment.isEmpty {
            (source, text) = ("YOULL_LOCAL_KEY", environment)
        } else {
            throw CLIError.usage(
                "a local key is required: give --key, --key-file or set YOULL_LOCAL_KEY (16 characters)")
        }
        guard text.utf8.count == 16 else {
            // On the command line a usage mistake; in a file or the environment, bad data.
            let message = "\(source): a local key is 16 characters, got \(text.utf8.count)"
            throw source == "--key" ? CLIError.usage(message) : CLIError(message)
        }
        return text
    }
}
