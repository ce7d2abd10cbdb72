import ArgumentParser

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
}
