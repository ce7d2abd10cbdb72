import ArgumentParser
import Foundation

/// The single binary: daemon and CLI (see ARCHITECTURE.md, module `youll-devices`).
@main
struct YoullDevices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "youll-devices",
        abstract: "A gateway for Tuya lights and aroma diffusers over MQTT and BLE.",
        version: "0.1.0",
        subcommands: [
            ServeCommand.self, DoctorCommand.self, DemoCommand.self, WireCommand.self, SimulateCommand.self,
        ] + BridgeCommands.all + [TimerCommand.self]
    )

    /// argument-parser's own `main`, except that under `--json` a usage error it finds
    /// itself (a bad value, an unknown flag, a missing argument) is one `{"error": …}`
    /// object on stderr like every other error (issue 14 item 18). Help, `--version` and
    /// completion requests exit with success and keep argument-parser's handling.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if jsonRequested, !(error is ExitCode), code != .success {
                writeErrorLine(message(for: error))
                Foundation.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
}
