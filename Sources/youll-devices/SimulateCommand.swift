import ArgumentParser
import DeviceSimulator
import Dispatch
import Foundation
import Storage
import TuyaCore

/// `youll-devices simulate`: simulated Tuya Wi-Fi lights and diffusers that speak the
/// real MQTT device protocol to a broker, so the gateway can be tried without hardware.
/// Writes a tinytuya-style devices.json that `pair import` reads. Runs until Ctrl-C.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate", abstract: "Run simulated Tuya lights and diffusers on an MQTT broker.")

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

    @Option(name: .long, help: "A folder of device profiles (repeatable; default: the installed ones).")
    var profiles: [String] = []

    @Option(name: .long, help: "Milliseconds a device waits before answering a command or query (real ones: tens).")
    var reportDelayMs: Int = 20

    func run() async throws {
        guard (0...20_000).contains(lights), (0...20_000).contains(diffusers), lights + diffusers > 0 else {
            FileHandle.standardError.write(
                Data("error: --lights and --diffusers: 0 to 20000 each, at least one device\n".utf8))
            throw ExitCode(1)
        }
        guard (0...60_000).contains(reportDelayMs) else {
            FileHandle.standardError.write(Data("error: --report-delay-ms: 0 to 60000\n".utf8))
            throw ExitCode(1)
        }
        let behaviour = DeviceBehaviour(reportDelay: .milliseconds(reportDelayMs))
        let directories = ProfileDirectories.search(explicit: profiles)
        let task = Task {
            try await SimulatorFleet.run(
                lights: lights, diffusers: diffusers, brokerURL: broker, devicesJSONPath: devicesJSON,
                library: ProfileLibrary.load(directories: directories), seed: seed, behaviour: behaviour
            ) { fleet in
                print("simulating \(fleet.identities.count) devices on \(broker); ids and keys in \(devicesJSON)")
                print("press Ctrl-C to stop")
            }
        }
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
