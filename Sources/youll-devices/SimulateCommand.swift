import ArgumentParser
import DeviceSimulator
import Dispatch
import Foundation
import Storage
import TuyaCore
import TuyaWire

/// `youll-devices simulate`: simulated Tuya Wi-Fi lights and diffusers that speak the
/// real MQTT device protocol to a broker, or with `--lan N` the Tuya LAN protocol
/// (3.3/3.4/3.5) on TCP 6668 of their own loopback addresses, so the gateway can be tried
/// without hardware. Writes a tinytuya-style devices.json that `pair import` reads (with
/// `ip` and `version` for LAN devices). Runs until Ctrl-C.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run simulated Tuya lights and diffusers on an MQTT broker or the LAN protocol.")

    @OptionGroup var lan: LANSimulateOptions

    @Option(name: .long, help: "Number of simulated RGB+CCT lights.")
    var lights: Int = 2

    @Option(name: .long, help: "Number of simulated aroma diffusers.")
    var diffusers: Int = 1

    @Option(name: .long, help: "The broker the devices connect to.")
    var broker: String = "mqtt://127.0.0.1:1883"

    @Option(name: .long, help: "Write the devices' ids and local keys here (tinytuya devices.json format).")
    var devicesJSON: String = "devices.json"

    @Option(name: .long, help: "Seed for device ids and keys: the same seed gives the same devices.")
    var seed: UInt64 = 1

    @Option(
        name: .long,
        help:
            "A folder of device profiles (repeatable; default: the source checkout's devices/, the installed ones and ~/.config/youll-devices/devices)."
    )
    var profiles: [String] = []

    @Option(name: .long, help: "Milliseconds a device waits before answering a command or query (real ones: tens).")
    var reportDelayMs: Int = 20

    @Option(
        name: .customLong("water-minutes"),
        help:
            "Minutes of misting a diffuser's full tank lasts (fractions allowed; default: 6 hours): it then reports water_shortage, as a real one runs dry."
    )
    var waterMinutes: Double?

    @Option(
        name: .long,
        help:
            "Raise this fault (a label of the diffuser's profile, e.g. water_shortage) on every diffuser once connected; repeatable."
    )
    var fault: [String] = []

    func run() async throws {
        if lan.lan > 0 {
            try await runLAN()
            return
        }
        guard (0...20_000).contains(lights), (0...20_000).contains(diffusers), lights + diffusers > 0 else {
            FileHandle.standardError.write(
                Data("error: --lights and --diffusers: 0 to 20000 each, at least one device\n".utf8))
            throw ExitCode(1)
        }
        guard (0...60_000).contains(reportDelayMs) else {
            FileHandle.standardError.write(Data("error: --report-delay-ms: 0 to 60000\n".utf8))
            throw ExitCode(1)
        }
        var behaviour = DeviceBehaviour(reportDelay: .milliseconds(reportDelayMs))
        if let waterMinutes {
            guard waterMinutes.isFinite, waterMinutes > 0, waterMinutes <= 100_000 else {
                FileHandle.standardError.write(
                    Data("error: --water-minutes: a number of minutes above 0 (up to 100000)\n".utf8))
                throw ExitCode(1)
            }
            behaviour.tankDuration = .milliseconds(Int64((waterMinutes * 60_000).rounded()))
        }
        let directories = try profileDirectories()
        let library = ProfileLibrary.load(directories: directories)
        try checkFaults(library)
        let (faults, broker, devicesJSON, fleetBehaviour) = (fault, broker, devicesJSON, behaviour)
        try await untilSignalled {
            try await SimulatorFleet.run(
                lights: lights, diffusers: diffusers, brokerURL: broker, devicesJSONPath: devicesJSON,
                library: library, seed: seed, behaviour: fleetBehaviour
            ) { fleet in
                var raised: [String] = []
                for label in faults {
                    for identity in fleet.identities where identity.profile.category == .diffuser {
                        if await fleet.raiseFault(label, on: identity.devId) {
                            raised.append("\(label) on \(identity.name)")
                        }
                    }
                }
                // Written straight to the descriptor: a pipe reader (a test, a script) sees it at once.
                FileHandle.standardOutput.write(
                    Data(
                        ("simulating \(fleet.identities.count) devices on \(broker); ids and keys in \(devicesJSON)\n"
                            + (raised.isEmpty ? "" : "raised \(raised.joined(separator: ", "))\n")
                            + "press Ctrl-C to stop\n").utf8))
            }
        }
    }

    /// Every --fault must be a fault label of a diffuser profile, and there must be a diffuser.
    private func checkFaults(_ library: ProfileLibrary) throws {
        guard !fault.isEmpty else { return }
        let known = Set(library.all.filter { $0.category == .diffuser }.flatMap { $0.faults.map(\.label) })
        for label in fault where !known.contains(label) {
            FileHandle.standardError.write(
                Data(
                    "error: --fault: no diffuser profile has a fault \"\(label.prefix(64))\"; known: \(known.sorted().joined(separator: ", "))\n"
                        .utf8))
            throw ExitCode(1)
        }
        if diffusers == 0 {
            FileHandle.standardError.write(
                Data("error: --fault: there is no diffuser to raise it on (--diffusers 0)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The folders to read, once they are known to hold at least one profile.
    private func profileDirectories() throws -> [URL] {
        let directories = ProfileDirectories.search(explicit: profiles)
        do {
            _ = try ProfileDirectories.requireProfiles(in: directories)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        return directories
    }

    /// `--lan N`: LAN devices only, no broker.
    private func runLAN() async throws {
        let options: LANSimulatorOptions
        do {
            options = try lan.options(seed: seed, reportDelayMs: reportDelayMs)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let directories = try profileDirectories()
        let path = devicesJSON
        try await untilSignalled {
            try await LANSimulatorFleet.run(
                options: options, devicesJSONPath: path, library: ProfileLibrary.load(directories: directories)
            ) {
                fleet in
                let versions = Set(fleet.identities.map(\.version.rawValue)).sorted().joined(separator: ", ")
                // Written straight to the descriptor: a pipe reader (a test, a script) sees it at once.
                FileHandle.standardOutput.write(
                    Data(
                        ("simulating \(fleet.identities.count) LAN devices (\(versions)) from \(options.baseAddress)"
                            + " on TCP \(options.port); ids, keys, addresses in \(path)\npress Ctrl-C to stop\n").utf8))
            }
        }
    }

    /// Runs `body` until SIGINT or SIGTERM cancels it; an error is one line and exit 1.
    private func untilSignalled(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await body() }
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await task.value
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// The `simulate --lan` options: how many LAN devices, which protocol versions, and the
/// loopback addresses and ports they use.
struct LANSimulateOptions: ParsableArguments {
    @Option(name: .long, help: "Run this many simulated LAN-protocol devices (no broker) instead of MQTT ones.")
    var lan: Int = 0

    @Option(name: .long, help: "How many of the LAN devices are diffusers (default: a third); the rest are lights.")
    var lanDiffusers: Int?

    @Option(name: .long, help: "Protocol versions handed out in turn, comma-separated.")
    var lanVersions: String = "3.3,3.4,3.5"

    @Option(name: .long, help: "The first device's loopback address; the next ones count up from it.")
    var lanBaseAddress: String = "127.0.10.1"

    @Option(name: .long, help: "The TCP port every LAN device listens on at its own address.")
    var lanPort: Int = 6668

    @Option(name: .long, help: "Where LAN devices send their discovery broadcasts.")
    var lanDiscoveryAddress: String = "127.255.255.255"

    @Option(name: .long, help: "UDP port of encrypted broadcasts (6667 on a real network).")
    var lanDiscoveryPort: Int = 6667

    @Option(name: .long, help: "Seconds between broadcasts (0: only once at start).")
    var lanBroadcastSeconds: Double = 5

    @Option(name: .long, help: "UDP port where 3.5 devices hear solicitations, on the discovery address (0: off).")
    var lanSolicitationPort: Int = 7000

    @Option(name: .long, help: "UDP port 3.5 devices answer a solicitation on.")
    var lanSolicitationReplyPort: Int = 7000

    func options(seed: UInt64, reportDelayMs: Int) throws -> LANSimulatorOptions {
        guard (1...20_000).contains(lan) else { throw CLIError.usage("--lan: 1 to 20000 devices") }
        guard (1...65_535).contains(lanPort) else { throw CLIError.usage("--lan-port: 1 to 65535") }
        let diffusers = lanDiffusers ?? lan / 3
        guard (0...lan).contains(diffusers) else { throw CLIError.usage("--lan-diffusers: 0 to \(lan)") }
        var versions: [LANProtocolVersion] = []
        for text in lanVersions.split(separator: ",") {
            guard let version = LANProtocolVersion(String(text)) else {
                throw CLIError.usage("--lan-versions: \"\(text)\" is not one of 3.1, 3.2, 3.3, 3.4, 3.5")
            }
            versions.append(version)
        }
        guard !versions.isEmpty else { throw CLIError.usage("--lan-versions: give at least one, e.g. 3.3,3.4,3.5") }
        for (name, port) in [
            ("--lan-discovery-port", lanDiscoveryPort),
            ("--lan-solicitation-port", lanSolicitationPort),
            ("--lan-solicitation-reply-port", lanSolicitationReplyPort),
        ] where !(0...65_535).contains(port) {
            throw CLIError.usage("\(name): 0 to 65535")
        }
        guard LoopbackAddress(lanBaseAddress) != nil else {
            throw CLIError.usage("--lan-base-address: \"\(lanBaseAddress)\" is not an address in 127.0.0.0/8")
        }
        guard (0...86_400).contains(lanBroadcastSeconds) else {
            throw CLIError.usage("--lan-broadcast-seconds: 0 to 86400")
        }
        guard (0...60_000).contains(reportDelayMs) else { throw CLIError.usage("--report-delay-ms: 0 to 60000") }
        return LANSimulatorOptions(
            lights: lan - diffusers, diffusers: diffusers, versions: versions, baseAddress: lanBaseAddress,
            port: lanPort, discoveryAddress: lanDiscoveryAddress, discoveryPort: lanDiscoveryPort,
            broadcastInterval: lanBroadcastSeconds > 0 ? .milliseconds(Int64(lanBroadcastSeconds * 1000)) : nil,
            solicitationAddress: lanSolicitationPort > 0 ? lanDiscoveryAddress : nil,
            solicitationPort: lanSolicitationPort, solicitationReplyPort: lanSolicitationReplyPort, seed: seed,
            behaviour: DeviceBehaviour(reportDelay: .milliseconds(reportDelayMs)))
    }
}
