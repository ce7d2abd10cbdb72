import ArgumentParser
import Foundation
import Gateway

#if canImport(Glibc)
    import Glibc
#endif

/// `youll-devices doctor`: is this machine ready to run the gateway? One line per check
/// (ok, warn or fail, with the fix), exit status 1 when anything fails. Runs in-process: it
/// needs no daemon, and says whether one is running.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the broker, BLE, the state directory, profiles and the clock; print what to fix.")

    @Option(name: .long, help: "The configuration file (default: as `serve`: /etc, then $XDG_CONFIG_HOME).")
    var config: String?

    @Flag(name: .long, help: "Print a JSON array of {check, status, detail, fix} for scripts.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds to listen for Tuya LAN devices' broadcasts on the discovery ports (0: only check they bind).",
            valueName: "seconds"))
    var lanListen: Double = 6

    func validate() throws {
        guard lanListen.isFinite, (0...120).contains(lanListen) else {
            throw ValidationError("--lan-listen \(lanListen) is outside 0...120 seconds")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var doctor = Doctor(
            configurationPath: config, environment: environment, lanListen: .milliseconds(Int64(lanListen * 1000)))
        // The same folders `serve` reads: a binary built in a checkout finds its devices/.
        doctor.profileDirectories = { ProfileDirectories.daemon(installed: $0.installed, user: $0.user) }
        let checks = await doctor.run()
        if json {
            print(DoctorReport.json(checks), terminator: "")
        } else {
            // NO_COLOR: https://no-color.org, set and not empty.
            let colour = isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR", default: ""].isEmpty
            print(DoctorReport.text(checks, colour: colour), terminator: "")
        }
        if let summary = DoctorReport.failureSummary(checks, json: json) {
            FileHandle.standardError.write(Data((summary + "\n").utf8))
            throw ExitCode(1)
        }
    }
}
