import ArgumentParser
import Foundation
import Gateway
import Storage
import TuyaCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `youll-devices backup FILE`: a consistent copy of the state database, taken on this
/// machine (not over MQTT: the copy holds every local key). Safe while the daemon runs.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the gateway's state (devices and local keys) to a file.")

    @Option(
        name: .long, help: "The configuration file (its state_directory is backed up).",
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    @Flag(name: .long, help: "Overwrite FILE if it exists.")
    var force = false

    @Argument(help: "Where to write the backup (mode 0600).", completion: .file())
    var file: String

    func run() throws {
        try reportingErrors {
            let directory = try stateDirectory(config: config)
            try requireDatabase(
                in: directory,
                missing: "no gateway state in \(directory.path) (nothing to back up)"
                    + serviceStateHint(besides: directory, file: nil) + "; is state_directory right?")
            let target = URL(fileURLWithPath: file)
            let folder = target.deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw CLIError("\(folder): no such folder; create it first (mkdir -p '\(folder)') or choose another")
            }
            do {
                try GatewayDatabase.backup(directory: directory, to: target, overwrite: force)
            } catch StorageError.backupExists(let path) {
                throw CLIError("\(path) already exists; choose another file or add --force to overwrite it")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
            if json {
                printJSONLine(.object(["path": .string(target.path), "size_bytes": .integer(Int64(size))]))
            } else {
                print("backed up \(directory.path) to \(target.path) (\(size) bytes)")
                printNote("note: the backup holds the devices' local keys; keep it private")
            }
        }
    }
}

/// `youll-devices restore FILE`: replaces the state with a backup; refuses while the
/// daemon runs (it holds the state lock).
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Replace the gateway's state with a backup (stop the daemon first).")

    @Option(
        name: .long, help: "The configuration file (its state_directory is replaced).",
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    @Flag(name: [.short, .long], help: "Do not ask for confirmation on a terminal.")
    var yes = false

    @Flag(name: .long, help: "Restore into a state directory that holds no state yet (a new machine).")
    var newState = false

    @Argument(help: "A file written by `youll-devices backup`.", completion: .file())
    var file: String

    func run() throws {
        try reportingErrors {
            let directory = try stateDirectory(config: config)
            let source = URL(fileURLWithPath: file)
            guard FileManager.default.fileExists(atPath: source.path) else {
                throw CLIError("\(source.path): no such file")
            }
            // `sudo youll-devices restore` without the service's configuration means root's own
            // state directory: restoring there would say "restored" and change nothing the
            // service reads.
            if !newState {
                try requireDatabase(
                    in: directory,
                    missing: "no gateway state in \(directory.path) to replace"
                        + serviceStateHint(besides: directory, file: file)
                        + "; to restore into \(directory.path) anyway (a new machine), add --new-state")
            }
            if !yes, Terminal.standardInputIsTerminal {
                try confirm("Replace the state in \(directory.path) with \(source.path)? [y/N] ")
            }
            let kept: URL?
            do {
                kept = try GatewayDatabase.restore(from: source, into: directory)
            } catch StorageError.daemonRunning {
                throw CLIError(
                    "the daemon is running (it holds \(directory.path)/state.lock); stop it first "
                        + "(`systemctl stop youll-devices`), then restore")
            }
            if json {
                printJSONLine(
                    .object([
                        "path": .string(source.path), "state_directory": .string(directory.path),
                        "replaced_state": kept.map { .string($0.path) } ?? .null,
                    ]))
            } else {
                print("restored \(directory.path) from \(source.path); start the daemon to use it")
                if let kept { print("the state it replaced is kept in \(kept.path)") }
            }
        }
    }
}

/// The configured state directory (file, `YOULL_*` environment, defaults), as `serve` uses it.
private func stateDirectory(config: String?) throws -> URL {
    let environment = ProcessInfo.processInfo.environment
    let configuration = try ConfigurationLoader.load(
        path: config, environment: environment, isService: ConfigurationLoader.isService(environment: environment))
    return URL(fileURLWithPath: configuration.stateDirectory, isDirectory: true)
}

/// Refuses a state directory without a readable database (`missing`: what to say when there is
/// none); a state this user cannot read is not a missing one.
private func requireDatabase(in directory: URL, missing: @autoclosure () -> String) throws {
    let database = directory.appendingPathComponent(StateDirectoryInspection.databaseName).path
    guard access(database, R_OK) != 0 else { return }
    switch errno {
    case ENOENT:
        throw CLIError(missing())
    case EACCES:
        throw CLIError("cannot read \(database): permission denied; run as the user the daemon runs as")
    default:
        throw CLIError("cannot read \(database): \(String(cString: strerror(errno)))")
    }
}

/// Where the installed service keeps its state (`scripts/install`, README "Run it as a service").
private let serviceStateDirectory = ConfigurationLoader.defaults(environment: [:], isService: true).stateDirectory

/// When the service's state exists elsewhere than `directory`: how to name it.
private func serviceStateHint(besides directory: URL, file: String?) -> String {
    guard directory.standardizedFileURL.path != serviceStateDirectory,
        FileManager.default.fileExists(atPath: serviceStateDirectory)
    else { return "" }
    let command = file.map { "restore '\($0)'" } ?? "backup FILE"
    return
        ", but the service keeps its state in \(serviceStateDirectory): run `sudo YOULL_STATE_DIR=\(serviceStateDirectory) youll-devices \(command)` (or set state_directory in \(ConfigurationLoader.systemConfigurationFile))"
}
