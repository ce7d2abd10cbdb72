import ArgumentParser
import Gateway
import TuyaCore

/// `youll-devices devices`: the paired devices from the retained `bridge/devices`, with each
/// one's retained availability.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List the paired devices and whether they are online.")

    @OptionGroup var bridge: BridgeOptions

    func run() async throws {
        try await reportingErrors {
            let (devices, availability) = try await bridge.withBridge { client, limit in
                try await Self.fetch(client, timeout: limit)
            }
            if bridge.json {
                printJSONLine(
                    .array(
                        devices.map { device in
                            var fields = device.json.objectValue ?? [:]
                            fields["availability"] = .string(availability[device.friendlyName] ?? "unknown")
                            return .object(fields)
                        }))
                return
            }
            guard !devices.isEmpty else {
                printNote("no devices are paired; pair one with `youll-devices pair mqtt DEVID --key-file FILE`")
                return
            }
            Self.table(devices, availability: availability).print()
        }
    }

    /// The device list and availability by friendly name, read in one pass over the retained topics.
    static func fetch(_ client: BridgeClient, timeout: Duration) async throws -> ([BridgeDevice], [String: String]) {
        let base = client.baseTopic
        let listTopic = "\(base)/bridge/devices"
        let messages = try await client.retained(matching: [listTopic, "\(base)/+/availability"], timeout: timeout)
        guard let list = messages.last(where: { $0.topic == listTopic }) else {
            throw BridgeClientError.nothingRetained(
                topic: listTopic, hint: "the daemon publishes it once it is connected")
        }
        let devices = try BridgeDevice.list(from: list.decoded(), topic: listTopic)
        var availability: [String: String] = [:]
        for message in messages where message.topic.hasSuffix("/availability") {
            let name = String(message.topic.dropFirst(base.count + 1).dropLast("/availability".count))
            var text = message.availability ?? "unknown"
            // Why it is offline, when the daemon says (`profile_not_loaded`).
            if let reason = message.json?["reason"]?.stringValue, !reason.isEmpty {
                text += " (" + BridgeText.printable(reason, maximumLength: 40) + ")"
            }
            availability[name] = text
        }
        return (devices.sorted { $0.friendlyName < $1.friendlyName }, availability)
    }

    static func table(_ devices: [BridgeDevice], availability: [String: String]) -> TextTable {
        var table = TextTable(headers: ["NAME", "ID", "TYPE", "TRANSPORT", "PROFILE", "AVAILABILITY"])
        table.colour = { column, text in
            column == 5 ? Terminal.colour(forStatus: String(text.prefix { $0 != " " })) : nil
        }
        for device in devices {
            table.append([
                device.friendlyName, device.id, device.category ?? "-", device.transport ?? "-", device.profile ?? "-",
                availability[device.friendlyName] ?? "unknown",
            ])
        }
        return table
    }
}
