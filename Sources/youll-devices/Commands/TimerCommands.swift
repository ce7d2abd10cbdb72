import ArgumentParser
import Foundation
import Gateway
import SessionEngine
import TuyaCore

/// `youll-devices timer …`: meditation sessions. With a daemon the session runs there
/// (and survives this command exiting); `--foreground`, or no daemon, runs it here.
struct TimerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timer", abstract: "Run meditation sessions that the lights and diffusers follow.",
        subcommands: [
            TimerStartCommand.self, TimerStatusCommand.self, TimerPauseCommand.self, TimerResumeCommand.self,
            TimerStopCommand.self, TimerHistoryCommand.self, TimerPresetsCommand.self,
        ])
}

struct TimerStartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "Start a session (one stage of --minutes, --stage…, --until or --open-ended).")

    @OptionGroup var bridge: BridgeOptions

    @Option(name: .long, help: "Length of the meditation in minutes (fractions allowed).")
    var minutes: Double?

    @Option(name: .long, help: "Seconds of warm-up before the first stage.")
    var warmup: Double?

    @Option(name: .long, help: "An interval bell every M minutes (with --minutes, --until or --open-ended).")
    var interval: Double?

    @Option(name: .long, help: "A stage NAME:MINUTES[:INTERVAL]; repeat for several.")
    var stage: [String] = []

    @Option(name: .long, help: "End at this local time: HH:MM (the next one within 12 hours) or 'tomorrow HH:MM'.")
    var until: String?

    @Flag(name: .customLong("open-ended"), help: "Run until stopped.")
    var openEnded = false

    @Option(
        name: .long, help: "The preset (calm, focus, sleep; default calm).", completion: CompletionCandidates.presets)
    var preset: String?

    @Option(
        name: .long, help: "Devices by friendly name or id, comma-separated (default: all).",
        completion: CompletionCandidates.deviceList)
    var devices: String?

    @Flag(name: .long, help: "Run the session in this process instead of the daemon.")
    var foreground = false

    /// `timer start` with nothing paired: the session runs, but nothing follows it.
    static let noDevicesWarning =
        "warning: no devices are paired, so no light or diffuser follows this session; "
        + "pair one with `youll-devices pair mqtt` (the session runs on as a timer)"

    func run() async throws {
        try await reportingErrors {
            let payload = try TimerStartPayload.make(
                minutes: minutes, warmup: warmup, interval: interval, stages: stage, until: until,
                openEnded: openEnded, preset: preset, devices: devices)
            if !foreground {
                do {
                    try await bridge.withBridge { client, limit in
                        let status = try await client.request("session/start", payload, timeout: limit)
                        if case .array(let following)? = status["devices"], following.isEmpty {
                            printNote(Self.noDevicesWarning)
                        }
                        if bridge.json {
                            printJSONLine(status)
                        } else if TimerFollow.isLive {
                            try await TimerFollow.follow(client, session: status.objectValue?["id"]?.stringValue)
                        } else {
                            print(
                                "started session \(TimerLine.text(status.objectValue?["id"]) ?? "?"): \(TimerLine.render(status))"
                            )
                        }
                    }
                    return
                } catch BridgeClientError.daemonNotRunning, BridgeClientError.daemonNotRepublished {
                    printNote("no daemon is running: the session runs in this process (Ctrl-C stops it)")
                }
            }
            try await TimerForeground(options: bridge).run(payload: payload)
        }
    }
}

struct TimerStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the running session.")

    @OptionGroup var bridge: BridgeOptions

    @Flag(name: .long, help: "Keep showing progress until the session ends.")
    var follow = false

    func run() async throws {
        try await reportingErrors {
            try await bridge.withBridge { client, limit in
                let status = try await client.request("session/status", timeout: limit)
                if follow, status.objectValue?["state"]?.stringValue != "idle" {
                    try await TimerFollow.follow(
                        client, session: status.objectValue?["id"]?.stringValue, json: bridge.json, from: status)
                } else if bridge.json {
                    printJSONLine(status)
                } else {
                    print(TimerLine.render(status))
                }
            }
        }
    }
}

/// `timer pause|resume|stop`: one request, the status it answers.
struct TimerControl {
    static func run(_ bridge: BridgeOptions, verb: String, payload: [String: JSONValue] = [:]) async throws {
        try await reportingErrors {
            try await bridge.withBridge { client, limit in
                let status = try await client.request(verb, payload, timeout: limit)
                if bridge.json { printJSONLine(status) } else { print(TimerLine.render(status)) }
            }
        }
    }
}

struct TimerPauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause the running session.")
    @OptionGroup var bridge: BridgeOptions
    func run() async throws { try await TimerControl.run(bridge, verb: "session/pause") }
}

struct TimerResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a paused session.")
    @OptionGroup var bridge: BridgeOptions
    func run() async throws { try await TimerControl.run(bridge, verb: "session/resume") }
}

struct TimerStopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "End the session: the preset's end effect plays from now.")
    @OptionGroup var bridge: BridgeOptions

    @Flag(name: .long, help: "Skip the end effect and apply the end state at once.")
    var now = false

    func run() async throws {
        try await TimerControl.run(bridge, verb: "session/stop", payload: now ? ["immediately": .bool(true)] : [:])
    }
}

struct TimerHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Finished sessions, totals, streaks and badges.")
    @OptionGroup var bridge: BridgeOptions

    @Option(name: .long, help: "How many sessions to list (1–10000).")
    var limit: Int = 20

    func run() async throws {
        try await reportingErrors {
            guard (1...10_000).contains(limit) else {
                throw CLIError.usage("--limit: expected 1 to 10000, got \(limit)")
            }
            let report = try await bridge.withBridge { client, timeout in
                try await client.request("session/history", ["limit": .integer(Int64(limit))], timeout: timeout)
            }
            if bridge.json {
                printJSONLine(report)
                return
            }
            let object = report.objectValue ?? [:]
            let sessions: [JSONValue] = if case .array(let list)? = object["sessions"] { list } else { [] }
            Self.table(sessions.compactMap(\.objectValue)).print()
            let total = TimerLine.seconds(object["total_seconds"]) ?? 0
            print(
                "\(object["completed_sessions"]?.int64Value ?? 0) completed, \(TimerLine.clock(total)) in total; "
                    + "streak \(Self.days(object["current_streak_days"]?.int64Value ?? 0)) "
                    + "(longest \(Self.days(object["longest_streak_days"]?.int64Value ?? 0)))"
            )
            if case .array(let badges)? = object["badges"], !badges.isEmpty {
                print("badges: \(badges.compactMap { TimerLine.text($0) }.joined(separator: ", "))")
            }
        }
    }
}

extension TimerHistoryCommand {
    /// `2026-11-29 07:30` for the bridge's `2026-11-29T06:30:00Z` in Berlin; text that is not
    /// such a time is shown as it came (escaped).
    static func localTime(_ text: String, in timeZone: TimeZone) -> String {
        guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
            return BridgeText.printable(text, maximumLength: 40)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0)
    }

    /// `2026-11-29 00:30` for `2026-11-29T00:30:00+01:00`: the date and time as the daemon
    /// wrote them, in its own offset; nil for text that is not such a time.
    static func asWritten(_ text: String) -> String? {
        guard (try? Date.ISO8601FormatStyle().parse(text)) != nil, text.count >= 16 else { return nil }
        return String(text.prefix(16)).replacing("T", with: " ")
    }

    /// `1 day`, `0 days`, `12 days`.
    static func days(_ count: Int64) -> String { count == 1 ? "1 day" : "\(count) days" }

    /// The sessions of a `session/history` answer as the history's table, each start in the
    /// daemon's time zone, the one its streaks count days in (`started_local`); from a daemon
    /// that does not say, `started_at` in this machine's.
    static func table(_ sessions: [[String: JSONValue]], timeZone: TimeZone = .current) -> TextTable {
        var table = TextTable(headers: ["STARTED", "PRESET", "STATE", "LENGTH"])
        for session in sessions {
            let started =
                session["started_local"]?.stringValue.flatMap(asWritten)
                ?? session["started_at"]?.stringValue.map { localTime($0, in: timeZone) }
            table.append([
                started ?? "-",
                session["preset"]?.stringValue ?? "-",
                session["state"]?.stringValue ?? "-",
                TimerLine.clock(TimerLine.seconds(session["elapsed_seconds"]) ?? 0),
            ])
        }
        return table
    }
}

struct TimerPresetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "presets", abstract: "List the session presets.")

    @OptionGroup var bridge: BridgeOptions

    func run() async throws {
        try reportingErrors {
            // The configured presets (`timer.presets`), which include the built-ins.
            let presets = try bridge.loadConfiguration().timer.presets
            if bridge.json {
                // One array, like `devices --json`; values as data, not prose (issue 14 item 18).
                printJSONLine(.array(presets.map(Self.json)))
            } else {
                for preset in presets { show(preset) }
            }
        }
    }

    private func show(_ preset: SessionPreset) {
        let light = preset.light.map(Self.describe) ?? "left alone"
        let diffuser = preset.diffuser.map(Self.describe) ?? "left alone"
        print("\(preset.name)\n  light:    \(light)\n  diffuser: \(diffuser)")
    }

    static func json(_ preset: SessionPreset) -> JSONValue {
        var light: JSONValue = .null
        if let preset = preset.light {
            var fields: [String: JSONValue] = [:]
            fields["brightness"] = preset.startScene.brightness.map { .integer(Int64($0)) } ?? .null
            fields["color_temp"] = preset.startScene.colorTemperature.map { .integer(Int64($0)) } ?? .null
            switch preset.bell {
            case .none: fields["bell"] = .null
            case .dip(let percent, _): fields["bell"] = .object(["dip_to": .integer(Int64(percent))])
            }
            switch preset.end {
            case .none: fields["end"] = .null
            case .sunrise(let brightness, let kelvin, let duration):
                fields["end"] = .object([
                    "effect": .string("sunrise"), "brightness": .integer(Int64(brightness)),
                    "color_temp": .integer(Int64(kelvin)), "seconds": .integer(duration.components.seconds),
                ])
            case .fadeOut(let duration):
                fields["end"] = .object([
                    "effect": .string("fade_out"), "seconds": .integer(duration.components.seconds),
                ])
            case .restore: fields["end"] = .object(["effect": .string("restore")])
            }
            light = .object(fields)
        }
        var diffuser: JSONValue = .null
        if let preset = preset.diffuser {
            let end: JSONValue =
                switch preset.end {
                case .none: .null
                case .fadeOut: .string("off")
                case .restore: .string("restore")
                }
            diffuser = .object(["mist": preset.startScene.mist.map(JSONValue.bool) ?? .null, "end": end])
        }
        return .object([
            "name": .string(preset.name), "light": light, "diffuser": diffuser,
            "restore_afterwards": .bool(preset.restoreAfterwards),
        ])
    }

    static func describe(_ light: LightPreset) -> String {
        var parts: [String] = []
        if let brightness = light.startScene.brightness { parts.append("\(brightness)%") }
        if let kelvin = light.startScene.colorTemperature { parts.append("\(kelvin) K") }
        switch light.bell {
        case .none: parts.append("no bell")
        case .dip(let percent, _): parts.append("bell dips to \(percent)%")
        }
        switch light.end {
        case .none: parts.append("left as is")
        case .sunrise(let brightness, let kelvin, let duration):
            parts.append("sunrise to \(brightness)% \(kelvin) K over \(duration.components.seconds) s")
        case .fadeOut(let duration): parts.append("fades out over \(duration.components.seconds) s")
        case .restore: parts.append("restored")
        }
        return parts.joined(separator: ", ")
    }

    static func describe(_ diffuser: DiffuserPreset) -> String {
        let start = diffuser.startScene.mist == true ? "mist on" : "as is"
        let end: String =
            switch diffuser.end {
            case .none: "keeps going"
            case .fadeOut: "off at the end"
            case .restore: "restored"
            }
        return "\(start), \(end)"
    }
}

/// The `session/start` request the flags describe (the daemon and the foreground mode
/// parse the same request).
enum TimerStartPayload {
    static func make(
        minutes: Double?, warmup: Double?, interval: Double?, stages: [String], until: String?, openEnded: Bool,
        preset: String?, devices: String?, now: Date = Date(), calendar: Calendar = .current
    ) throws -> [String: JSONValue] {
        var payload: [String: JSONValue] = [:]
        let lengths = [minutes != nil, !stages.isEmpty, until != nil, openEnded].filter { $0 }.count
        guard lengths == 1 else {
            throw CLIError.usage(
                lengths == 0
                    ? "say how long: --minutes N, --stage NAME:MIN[:INTERVAL], --until HH:MM or --open-ended"
                    : "--minutes, --stage, --until and --open-ended: give only one kind")
        }
        // `nan` and `inf` parse as numbers, and JSON writes them as null: the daemon would say
        // the length is missing, or drop the warm-up or the bells without a word.
        for (option, value) in [("--minutes", minutes), ("--warmup", warmup), ("--interval", interval)] {
            if let value, !value.isFinite { throw CLIError.usage("\(option): \(value) is not a number") }
        }
        if let minutes { payload["minutes"] = .double(minutes) }
        if let warmup { payload["warmup_seconds"] = .double(warmup) }
        if let interval { payload["interval_minutes"] = .double(interval) }
        if let until { payload["until"] = .string(try TimerUntil.resolve(until, now: now, calendar: calendar)) }
        if openEnded { payload["open_ended"] = .bool(true) }
        if let preset { payload["preset"] = .string(preset) }
        if let devices {
            let names = devices.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard !names.isEmpty, !names.contains(where: \.isEmpty) else {
                throw CLIError.usage("--devices: expected names or ids separated by commas, got \"\(devices)\"")
            }
            payload["devices"] = .array(names.map(JSONValue.string))
        }
        if !stages.isEmpty { payload["stages"] = .array(try stages.map(stage)) }
        return payload
    }

    /// `NAME:MINUTES[:INTERVAL]`.
    static func stage(_ text: String) throws -> JSONValue {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), !parts[0].isEmpty else {
            throw CLIError.usage("--stage \"\(text)\": expected NAME:MINUTES or NAME:MINUTES:INTERVAL")
        }
        guard let minutes = Double(parts[1]), minutes.isFinite else {
            throw CLIError.usage("--stage \"\(text)\": \"\(parts[1])\" is not a number of minutes")
        }
        var fields: [String: JSONValue] = ["name": .string(parts[0]), "minutes": .double(minutes)]
        if parts.count == 3 {
            guard let interval = Double(parts[2]), interval.isFinite else {
                throw CLIError.usage("--stage \"\(text)\": \"\(parts[2])\" is not a number of minutes")
            }
            fields["interval"] = .double(interval)
        }
        return .object(fields)
    }
}
