import ArgumentParser

/// The commands that work with a running daemon (over the MQTT bridge API) or its state
/// directory, registered by `YoullDevices`.
enum BridgeCommands {
    static let all: [any ParsableCommand.Type] = [
        PairCommand.self, DevicesCommand.self, GetCommand.self, SetCommand.self, MonitorCommand.self,
        RenameCommand.self, RemoveCommand.self, RekeyCommand.self, RefreshCommand.self, BackupCommand.self,
        RestoreCommand.self, MaintenanceCommand.self, OpenCommand.self,
    ]
}
