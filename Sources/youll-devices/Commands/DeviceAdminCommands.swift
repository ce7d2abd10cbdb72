import ArgumentParser
import Foundation
import Gateway
import TuyaCore

/// `youll-devices rename DEVICE NEW`: `device/rename`; the device's topics move to the new name.
struct RenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Give a device a new friendly name.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    @Argument(help: "The new name (1–64 characters, no /, + or #).", completion: .list([]))
    var newName: String

    func run() async throws {
        try await reportingErrors {
            let answer = try await bridge.withBridge { client, limit in
                try await client.request(
                    "device/rename", ["from": .string(device), "to": .string(newName)], timeout: limit)
            }
            if bridge.json { return printJSONLine(answer) }
            let from = answer["from"]?.stringValue ?? device
            let to = answer["to"]?.stringValue ?? newName
            print("renamed \(BridgeText.printable(from)) to \(BridgeText.printable(to))")
        }
    }
}

/// `youll-devices remove DEVICE`: `device/remove`; forgets the device and its local key.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Unpair a device (its local key is forgotten).")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    @Flag(name: [.short, .long], help: "Do not ask for confirmation on a terminal.")
    var yes = false

    func run() async throws {
        try await reportingErrors {
            let answer = try await bridge.withBridge { client, limit in
                if !yes, Terminal.standardInputIsTerminal {
                    // A name that matches nothing is said before anything is asked.
                    let found = try BridgeDevice.resolve(device, in: try await client.devices(timeout: limit))
                    try confirm("Remove \(describe(found)) and forget its local key? [y/N] ")
                }
                return try await client.request("device/remove", ["id": .string(device)], timeout: limit)
            }
            if bridge.json { return printJSONLine(answer) }
            print("removed \(describe(answer, fallback: device))")
        }
    }
}

/// `youll-devices rekey DEVICE --key-file F`: `device/rekey`; the daemon checks the new key
/// against the device before storing it.
struct RekeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey", abstract: "Replace a device's local key (after re-pairing it in the Tuya app).")

    @OptionGroup var bridge: BridgeOptions
    @OptionGroup var key: LocalKeyOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    func run() async throws {
        try await reportingErrors {
            let localKey = try key.localKey()
            let answer = try await bridge.withBridge(waitDefault: pairingWaitSeconds) { client, limit in
                try await PairingWait.ask(
                    client, "device/rekey", ["id": .string(device), "local_key": .string(localKey)], device: device,
                    limit: limit, askAgain: bridge.timeout != nil, json: bridge.json)
            }
            if bridge.json { return printJSONLine(answer) }
            print("new local key verified and stored for \(describe(answer, fallback: device))")
        }
    }
}

/// `youll-devices refresh DEVICE`: `device/refresh`; the device is asked for all its values.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Ask a device for all its values now.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    func run() async throws {
        try await reportingErrors {
            let answer = try await bridge.withBridge { client, limit in
                try await client.request("device/refresh", ["id": .string(device)], timeout: limit)
            }
            if bridge.json { return printJSONLine(answer) }
            print("asked \(describe(answer, fallback: device)) for all its values")
        }
    }
}

/// `name (id)` for a listed device.
func describe(_ device: BridgeDevice) -> String {
    BridgeText.printable(device.friendlyName)
        + (device.id == device.friendlyName ? "" : " (\(BridgeText.printable(device.id)))")
}

/// `name (id)` from a `{id, friendly_name}` answer.
func describe(_ answer: JSONValue, fallback: String) -> String {
    let name = answer["friendly_name"]?.stringValue ?? fallback
    let id = answer["id"]?.stringValue
    return BridgeText.printable(name) + (id.map { $0 == name ? "" : " (\(BridgeText.printable($0)))" } ?? "")
}

/// Asks on the terminal; anything but y/yes stops the command with exit status 1.
func confirm(_ question: String) throws {
    FileHandle.standardError.write(Data(question.utf8))
    let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
    guard answer == "y" || answer == "yes" else { throw CLIError("cancelled; nothing was changed") }
}
