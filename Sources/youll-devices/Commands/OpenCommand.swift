import ArgumentParser
import DeepLinks
import Foundation
import Gateway
import Storage
import TuyaCore

/// `youll-devices open URL`: resolves a deep link through the daemon and carries out its
/// destination. `--dry-run` prints the resolution only and needs no daemon.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Resolve a youll:// (or universal) link and carry it out.",
        discussion: """
            A maintenance link shows the reminder's state and instructions (--done marks it done); \
            a device link shows the device's state; a link that waits for something (a device to \
            pair, a session to end) says what to do. A link that cannot be resolved exits with \
            status 1 and the reason. --dry-run resolves in-process against the local state \
            database (read-only), without a daemon.
            """)

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The link, e.g. youll://tuya/maintenance?type=refill&device=ID")
    var url: String

    @Flag(name: .long, help: "Print the resolution only; needs no daemon.")
    var dryRun = false

    @Flag(name: .long, help: "For a maintenance link: mark the task done.")
    var done = false

    @Flag(name: [.short, .long], help: "Start a timer link's session without asking (for scripts).")
    var yes = false

    func run() async throws {
        try await reportingErrors {
            if dryRun {
                if done { throw CLIError.usage("--done and --dry-run: give only one") }
                let (json, resolved) = DeepLinkOpener.dryRun(url, configuration: try bridge.loadConfiguration())
                if bridge.json {
                    printJSONLine(json)
                    if !resolved { throw ExitCode(1) }
                } else {
                    guard resolved else {
                        throw CLIError(json.objectValue?["message"]?.stringValue ?? "cannot resolve")
                    }
                    for line in DeepLinkOpener.describe(json) { print(line) }
                }
                return
            }
            let consent: DeepLinkOpener.Consent = yes ? .given : (Terminal.standardInputIsTerminal ? .ask : .missing)
            let outcome = try await bridge.withBridge { client, limit in
                try await DeepLinkOpener.open(url, client: client, timeout: limit, markDone: done, consent: consent)
            }
            if bridge.json {
                printJSONLine(outcome.json)
            } else {
                for line in outcome.lines { print(line) }
            }
        }
    }
}

/// What `open` and the demo do with a link; one code path for both.
enum DeepLinkOpener {
    struct Outcome {
        /// The daemon's resolution, with `done` added when `--done` marked the task.
        var json: JSONValue
        var lines: [String]
    }

    /// Resolves `url` through the daemon's `deeplink/resolve` and carries out the destination.
    /// A link that cannot be resolved throws with the daemon's reason.
    /// Whether a timer link may start its session: `--yes`, a person answering on the
    /// terminal, or neither (a script without --yes: refused, never started silently).
    enum Consent {
        case given
        case ask
        case missing
    }

    static func open(
        _ url: String, client: BridgeClient, timeout: Duration, markDone: Bool, consent: Consent = .missing
    ) async throws -> Outcome {
        let resolution: JSONValue
        do {
            resolution = try await client.request("deeplink/resolve", ["url": .string(url)], timeout: timeout)
        } catch {
            // The daemon's reason ("url: malformed link: …") is the whole story.
            if case .requestFailed(_, let message) = error { throw CLIError(message) }
            throw error
        }
        var fields = resolution.objectValue ?? [:]
        var lines: [String] = []
        guard fields["resolution"]?.stringValue == "proceed", let destination = fields["destination"]?.objectValue
        else {
            if markDone {
                throw CLIError(
                    "--done: the link waits for something first; \(describe(resolution).joined(separator: " "))")
            }
            return Outcome(json: resolution, lines: describe(resolution))
        }
        let device = fields["friendly_name"]?.stringValue ?? destination["device"]?.stringValue
        switch destination["kind"]?.stringValue {
        case "tuya_maintenance":
            lines += try await maintenanceLines(
                url, destination: destination, device: device, fields: &fields, client: client, timeout: timeout,
                markDone: markDone)
        case "tuya_device":
            if markDone { throw CLIError("--done: only a maintenance link can be marked done") }
            guard let device else { break }
            lines += try await deviceLines(device, fields: &fields, client: client, timeout: timeout)
        case "timer":
            if markDone { throw CLIError("--done: only a maintenance link can be marked done") }
            return try await DeepLinkTimer.start(destination, client: client, timeout: timeout, consent: consent)
        case "timer_session":
            if markDone { throw CLIError("--done: only a maintenance link can be marked done") }
            return try await DeepLinkTimer.show(destination, client: client, timeout: timeout)
        default:
            if markDone { throw CLIError("--done: only a maintenance link can be marked done") }
            lines += describe(resolution)
        }
        return Outcome(json: .object(fields), lines: lines)
    }

    /// A maintenance link: the reminder, then marked done (`--done`) or how to mark it.
    private static func maintenanceLines(
        _ url: String, destination: [String: JSONValue], device: String?, fields: inout [String: JSONValue],
        client: BridgeClient, timeout: Duration, markDone: Bool
    ) async throws -> [String] {
        var lines: [String] = []
        if let reminder = fields["reminder"] { lines += reminderDetails(reminder) }
        if markDone, let device, let type = destination["type"]?.stringValue {
            let data = try await client.request(
                "maintenance/done", ["device": .string(device), "type": .string(type)], timeout: timeout)
            let after = data.objectValue?["reminder"] ?? .null
            fields["done"] = after
            let state = after.objectValue?["state"]?.stringValue ?? "?"
            let left = after.objectValue?["percent_remaining"]?.int64Value ?? 0
            lines.append("marked done: \(BridgeText.printable(state)), \(left) % remaining")
        } else if let device, let type = destination["type"]?.stringValue {
            lines.append(
                "when it is done: youll-devices open --done '\(url)' "
                    + "(or youll-devices maintenance done \(BridgeText.printable(device)) \(BridgeText.printable(type)))"
            )
        }
        return lines
    }

    /// A device link: the device's retained state, or that it has not reported yet.
    private static func deviceLines(
        _ device: String, fields: inout [String: JSONValue], client: BridgeClient, timeout: Duration
    ) async throws -> [String] {
        var lines = ["device \(BridgeText.printable(device))"]
        let topic = "\(client.baseTopic)/\(device)"
        if let message = try await client.retained(topic, timeout: timeout), let state = try? message.decoded() {
            fields["state"] = state
            lines += stateList(state).render(on: .current).map { "  " + $0 }
        } else {
            lines.append("  it has not reported yet; try `youll-devices get --refresh \(BridgeText.printable(device))`")
        }
        return lines
    }

    /// Resolves in-process: the context is the local state database's paired devices (read
    /// without writing, empty when there is none) with the configured profiles and hosts.
    static func dryRun(_ url: String, configuration: GatewayConfiguration) -> (JSONValue, Bool) {
        var devices: [(id: DeviceID, profileID: String)] = []
        var names: [DeviceID: String] = [:]
        var library = ProfileLibrary()
        let directory = URL(fileURLWithPath: configuration.stateDirectory)
        do {
            let paired = try GatewayDatabase.pairedDevicesReadOnly(directory: directory)
            devices = paired.map { ($0.id, $0.profileID) }
            names = Dictionary(paired.map { ($0.id, $0.name) }) { first, _ in first }
            if !devices.isEmpty {
                library = ProfileLibrary.load(
                    directories: ProfileDirectories.daemon(
                        installed: configuration.profiles.installed, user: configuration.profiles.user),
                    defaultFrameGap: configuration.devices.frameGapMilliseconds)
            }
        } catch {
            printNote("resolving without paired devices: the state database could not be read (\(error))")
        }
        let context = RouteContext.gateway(
            devices: devices, library: library, presets: configuration.timer.presetNames,
            universalLinkHosts: Set(configuration.universalLinkHosts), names: names)
        return DeepLinkJSON.resolve(url, context: context)
    }

    /// A resolution as sentences.
    static func describe(_ resolution: JSONValue) -> [String] {
        let fields = resolution.objectValue ?? [:]
        func text(_ key: String) -> String { BridgeText.printable(fields[key]?.stringValue ?? "") }
        switch fields["resolution"]?.stringValue {
        case "proceed":
            let destination = fields["destination"]?.objectValue ?? [:]
            let kind = destination["kind"]?.stringValue ?? "?"
            var line = "proceed: \(kind.replacingOccurrences(of: "_", with: " "))"
            for key in ["device", "type", "preset", "minutes", "session"] {
                if let value = destination[key] { line += " \(key)=\(BridgeText.printable(humanText(value)))" }
            }
            var lines = [line]
            switch kind {
            case "tuya_pair": lines.append("pair a device with: youll-devices pair mqtt DEVID --key-file FILE")
            case "timer": lines.append("open it without --dry-run to start the session")
            default: break
            }
            return lines
        case "gated":
            return ["waiting: \(text("message"))", "to do first: \(text("action"))", "then open: \(text("resume"))"]
        default:
            return ["error: \(text("message"))"]
        }
    }
}
