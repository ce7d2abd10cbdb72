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
            let (devices, availability, reasons) = try await bridge.withBridge { client, limit in
                try await Self.fetch(client, timeout: limit)
            }
            if bridge.json {
                printJSONLine(
                    .array(
                        devices.map { device in
                            var fields = device.json.objectValue ?? [:]
                            fields["availability"] = .string(availability[device.friendlyName] ?? "unknown")
                            if let reason = reasons[device.friendlyName] {
                                fields["availability_reason"] = .string(reason)
                            }
                            return .object(fields)
                        }))
                return
            }
            guard !devices.isEmpty else {
                printNote("no devices are paired; pair one with `youll-devices pair mqtt DEVID --key-file FILE`")
                return
            }
            Self.table(devices, availability: availability, reasons: reasons).print()
        }
    }

    /// The device list, and each one's availability and its reason when the daemon gives one
    /// (`profile_not_loaded`), by friendly name, read in one pass over the retained topics.
    static func fetch(_ client: BridgeClient, timeout: Duration) async throws -> (
        [BridgeDevice], availability: [String: String], reasons: [String: String]
    ) {
        let base = client.baseTopic
        let listTopic = "\(base)/bridge/devices"
        let messages = try await client.retained(matching: [listTopic, "\(base)/+/availability"], timeout: timeout)
        guard let list = messages.last(where: { $0.topic == listTopic }) else {
            throw BridgeClientError.nothingRetained(
                topic: listTopic, hint: "the daemon publishes it once it is connected")
        }
        let devices = try BridgeDevice.list(from: list.decoded(), topic: listTopic)
        var availability: [String: String] = [:]
        var reasons: [String: String] = [:]
        for message in messages where message.topic.hasSuffix("/availability") {
            let name = String(message.topic.dropFirst(base.count + 1).dropLast("/availability".count))
            availability[name] = message.availability ?? "unknown"
            if let reason = message.json?["reason"]?.stringValue, !reason.isEmpty {
                reasons[name] = String(reason.prefix(40))
            }
        }
        return (devices.sorted { $0.friendlyName < $1.friendlyName }, availability, reasons)
    }

    /// The table `devices` prints; a reason follows the availability in brackets (cells are
    /// made printable by the table).
    static func table(
        _ devices: [BridgeDevice], availability: [String: String], reasons: [String: String] = [:]
    ) -> TextTable {
        var table = TextTable(headers: ["NAME", "ID", "TYPE", "TRANSPORT", "PROFILE", "AVAILABILITY"])
        table.colour = { column, text in
            column == 5 ? Terminal.colour(forStatus: String(text.prefix { $0 != " " })) : nil
        }
        for device in devices {
            table.append([
                device.friendlyName, device.id, device.category ?? "-", device.transport ?? "-", device.profile ?? "-",
                (availability[device.friendlyName] ?? "unknown")
                    + (reasons[device.friendlyName].map { " (\($0))" } ?? ""),
            ])
        }
        return table
    }
}
