import ArgumentParser
import Gateway
import TuyaCore

/// `youll-devices get DEVICE`: the device's confirmed state, as retained on `<base>/<name>`.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Show a device's state.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    @Flag(name: .long, help: "Ask the device for all its values first and show what it answers.")
    var refresh = false

    func run() async throws {
        try await reportingErrors {
            let state = try await bridge.withBridge { client, limit in
                let target = try BridgeDevice.resolve(device, in: try await client.devices(timeout: limit))
                let topic = "\(client.baseTopic)/\(target.friendlyName)"
                if refresh {
                    return try await client.refreshedState(device: target.friendlyName, timeout: limit).decoded()
                }
                guard let message = try await client.retained(topic, timeout: limit) else {
                    throw BridgeClientError.nothingRetained(
                        topic: topic,
                        hint:
                            "the device has not reported yet; try `youll-devices get --refresh \(Self.argument(target.friendlyName))`"
                    )
                }
                return try message.decoded()
            }
            if bridge.json {
                printJSONLine(state)
            } else {
                stateList(state).print()
            }
        }
    }

    /// A name as a shell reads it back: quoted unless it is plain, and printable.
    static func argument(_ name: String) -> String {
        let plain = !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        let shown = BridgeText.printable(name, maximumLength: 64)
        return plain ? shown : "'" + shown.replacing("'", with: "'\\''") + "'"
    }
}

/// A device state as `key  value` lines, keys sorted.
func stateList(_ state: JSONValue) -> KeyValueList {
    var list = KeyValueList()
    if let members = state.objectValue {
        for key in members.keys.sorted() { list.append(key, humanText(members[key] ?? .null)) }
    } else {
        list.append("state", humanText(state))
    }
    return list
}
