import ArgumentParser
import Foundation
import Gateway
import TuyaCore

/// `youll-devices maintenance list|done|snooze`: the daemon's maintenance reminders.
struct MaintenanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance", abstract: "List, complete and snooze maintenance reminders.",
        subcommands: [MaintenanceListCommand.self, MaintenanceDoneCommand.self, MaintenanceSnoozeCommand.self])
}

/// `maintenance list [DEVICE] [--json]`: device, type, state, % remaining, next due.
struct MaintenanceListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show every maintenance reminder.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "Only this device (friendly name or id).", completion: CompletionCandidates.devices)
    var device: String?

    func run() async throws {
        try await reportingErrors {
            var payload: [String: JSONValue] = [:]
            if let device { payload["device"] = .string(device) }
            let data = try await bridge.withBridge { client, limit in
                try await client.request("maintenance/list", payload, timeout: limit)
            }
            let reminders = items(data.objectValue?["reminders"])
            if bridge.json {
                printJSONLine(.array(reminders))
                return
            }
            guard !reminders.isEmpty else {
                printNote("no maintenance reminders; paired diffusers get them from their profiles")
                return
            }
            reminderTable(reminders).print()
        }
    }
}

/// `maintenance done DEVICE TYPE`: the task was carried out (idempotent).
struct MaintenanceDoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark a maintenance task done.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    @Argument(help: "The maintenance type (refill, clean, replace-wick, …).")
    var type: String

    func run() async throws {
        try await reportingErrors {
            let data = try await bridge.withBridge { client, limit in
                try await client.request(
                    "maintenance/done", ["device": .string(device), "type": .string(type)], timeout: limit)
            }
            printReminderOutcome(data, verb: "done", json: bridge.json)
        }
    }
}

/// `maintenance snooze DEVICE TYPE --for 2d`: hold the reminder's alerts for a while.
struct MaintenanceSnoozeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Hold a maintenance reminder's alerts for a while.")

    @OptionGroup var bridge: BridgeOptions

    @Argument(help: "The device's friendly name or id.", completion: CompletionCandidates.devices)
    var device: String

    @Argument(help: "The maintenance type (refill, clean, replace-wick, …).")
    var type: String

    @Option(name: .customLong("for"), help: "How long: 2d, 3h, 45m, 90s or seconds.")
    var length: String

    func run() async throws {
        try await reportingErrors {
            let seconds: Int
            switch SnoozeDuration.seconds(length) {
            case .success(let value): seconds = value
            case .failure(let error): throw CLIError.usage("--for: \(error)")
            }
            let data = try await bridge.withBridge { client, limit in
                try await client.request(
                    "maintenance/snooze",
                    ["device": .string(device), "type": .string(type), "for": .integer(Int64(seconds))], timeout: limit)
            }
            printReminderOutcome(data, verb: "snoozed", json: bridge.json)
        }
    }
}

/// DEVICE, TYPE, STATE, REMAINING, NEXT DUE, one line per reminder.
func reminderTable(_ reminders: [JSONValue]) -> TextTable {
    var table = TextTable(headers: ["DEVICE", "TYPE", "STATE", "REMAINING", "NEXT DUE"])
    table.colour = { column, text in column == 2 ? reminderColour(text) : nil }
    for reminder in reminders {
        let fields = reminder.objectValue ?? [:]
        table.append([
            text(fields["friendly_name"] ?? fields["device"]), text(fields["type"]),
            text(fields["state"]).replacingOccurrences(of: "_", with: " "),
            fields["percent_remaining"]?.int64Value.map { "\($0) %" } ?? "-",
            fields["next_due"]?.stringValue.map { BridgeText.printable($0) } ?? "-",
        ])
    }
    return table
}

/// A reminder's state, % remaining, next due and instructions, as `open` shows it.
func reminderDetails(_ reminder: JSONValue) -> [String] {
    let fields = reminder.objectValue ?? [:]
    var lines = [
        "\(text(fields["title"])) — \(text(fields["friendly_name"] ?? fields["device"]))",
        "  state: \(text(fields["state"]).replacingOccurrences(of: "_", with: " ")), "
            + "\(fields["percent_remaining"]?.int64Value ?? 0) % remaining"
            + (fields["next_due"]?.stringValue.map { ", next due \(BridgeText.printable($0))" } ?? ""),
    ]
    if let snoozed = fields["snoozed_until"]?.stringValue {
        lines.append("  snoozed until \(BridgeText.printable(snoozed))")
    }
    let body = text(fields["body"])
    if !body.isEmpty { lines.append("  \(body)") }
    for (number, step) in items(fields["steps"]).enumerated() {
        lines.append("  \(number + 1). \(text(step))")
    }
    return lines
}

private func printReminderOutcome(_ data: JSONValue, verb: String, json: Bool) {
    let reminder = data.objectValue?["reminder"] ?? .null
    if json {
        printJSONLine(reminder)
        return
    }
    let fields = reminder.objectValue ?? [:]
    print(
        "\(text(fields["friendly_name"] ?? fields["device"])) \(text(fields["type"])): \(verb); now "
            + "\(text(fields["state"]).replacingOccurrences(of: "_", with: " ")), "
            + "\(fields["percent_remaining"]?.int64Value ?? 0) % remaining")
}

private func reminderColour(_ state: String) -> Terminal.Colour? {
    switch state {
    case "ok": .green
    case "due soon": .yellow
    default: .red
    }
}

/// A daemon-supplied value made safe to print.
private func text(_ value: JSONValue?) -> String {
    switch value {
    case .string(let string)?: BridgeText.printable(string)
    case nil, .null?: "-"
    case let other?: BridgeText.printable(humanText(other))
    }
}

/// The elements of a JSON array; empty for anything else.
func items(_ value: JSONValue?) -> [JSONValue] {
    if case .array(let elements)? = value { return elements }
    return []
}
