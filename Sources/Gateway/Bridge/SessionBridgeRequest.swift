import SessionEngine
import TuyaCore

/// The `session/*` verbs of the bridge API (README "Timer sessions"), parsed from a
/// request object. Every refusal names the field.
public enum SessionBridgeRequest: Hashable, Sendable {
    case start(SessionStartRequest)
    case pause
    case resume
    /// `immediately`: skip the end effect and apply the end state at once.
    case stop(immediately: Bool)
    case status
    case history(limit: Int?)

    public static let verbs = [
        "session/start", "session/pause", "session/resume", "session/stop", "session/status", "session/history",
    ]

    /// The most stages a request may list.
    static let maximumStages = 50
    static let maximumDevices = 256

    static func parse(verb: String, fields: inout RequestFields) throws(BridgePayloadError) -> SessionBridgeRequest {
        switch verb {
        case "session/start": return .start(try parseStart(&fields))
        case "session/pause": return .pause
        case "session/resume": return .resume
        case "session/stop": return .stop(immediately: try fields.optionalBool("immediately") ?? false)
        case "session/status": return .status
        case "session/history": return .history(limit: try fields.optionalInteger("limit", in: 1...10_000))
        default: throw BridgePayloadError(field: "verb", reason: "unknown session request")
        }
    }

    private static func parseStart(_ fields: inout RequestFields) throws(BridgePayloadError) -> SessionStartRequest {
        let preset = try fields.optionalString("preset")
        if let preset, preset.isEmpty || preset.utf8.count > 32 {
            throw BridgePayloadError(field: "preset", reason: "expected a preset name (1 to 32 characters)")
        }
        let minutes = try duration(&fields, "minutes", unit: 60, allowZero: false)
        let warmUp = try duration(&fields, "warmup_seconds", unit: 1, allowZero: true)
        let interval = try duration(&fields, "interval_minutes", unit: 60, allowZero: false)
        let until = try fields.optionalString("until")
        let openEnded = try fields.optionalBool("open_ended") ?? false
        let stages = try parseStages(fields.take("stages"))
        let devices = try parseDevices(fields.take("devices"))

        let lengths = [minutes != nil, stages != nil, until != nil, openEnded].filter { $0 }.count
        guard lengths == 1 else {
            throw BridgePayloadError(
                field: lengths == 0 ? "minutes" : "stages",
                reason: lengths == 0
                    ? "missing; give minutes, stages, until or open_ended: true"
                    : "give only one of minutes, stages, until and open_ended")
        }
        let length: SessionConfiguration.Length
        var untilTomorrow = false
        if let minutes {
            length = .stages([SessionStage(name: "meditation", length: minutes, bellInterval: interval)])
        } else if let stages {
            if interval != nil {
                throw BridgePayloadError(field: "interval_minutes", reason: "with stages, give each stage its interval")
            }
            length = .stages(stages)
        } else if let until {
            do {
                let parsed = try UntilRule.parse(until)
                length = .until(parsed.time, bellInterval: interval)
                untilTomorrow = parsed.tomorrow
            } catch {
                throw BridgePayloadError(field: "until", reason: "expected HH:MM or tomorrow HH:MM, 00:00 to 23:59")
            }
        } else {
            length = .openEnded(bellInterval: interval)
        }
        return SessionStartRequest(
            preset: preset, configuration: SessionConfiguration(warmUp: warmUp, length: length), devices: devices,
            untilTomorrow: untilTomorrow)
    }

    /// A number of `unit` seconds (fractions allowed: `0.5` minutes), as whole milliseconds.
    private static func duration(
        _ fields: inout RequestFields, _ key: String, unit: Double, allowZero: Bool
    ) throws(BridgePayloadError) -> Duration? {
        try duration(fields.take(key), field: key, unit: unit, allowZero: allowZero)
    }

    private static func duration(_ value: JSONValue?, field: String, unit: Double, allowZero: Bool)
        throws(BridgePayloadError) -> Duration?
    {
        let number: Double
        switch value {
        case nil, .null?: return nil
        case .integer(let int)?: number = Double(int)
        case .double(let double)?: number = double
        default: throw BridgePayloadError(field: field, reason: "expected a number")
        }
        let milliseconds = number * unit * 1000
        guard milliseconds.isFinite, milliseconds >= 0, milliseconds <= 86_400_000 else {
            throw BridgePayloadError(field: field, reason: "expected a number from 0 up to 24 hours")
        }
        guard allowZero || milliseconds >= 1 else {
            throw BridgePayloadError(field: field, reason: "must be longer than zero")
        }
        // 0.0001 minutes is a typo, not a session: nothing a person sits through is under a second.
        guard milliseconds == 0 || milliseconds >= 1000 else {
            throw BridgePayloadError(field: field, reason: "must be at least one second (0.02 minutes)")
        }
        return milliseconds < 1 ? nil : .milliseconds(Int64(milliseconds.rounded()))
    }

    private static func parseStages(_ value: JSONValue?) throws(BridgePayloadError) -> [SessionStage]? {
        guard let value, value != .null else { return nil }
        guard case .array(let items) = value, !items.isEmpty, items.count <= maximumStages else {
            throw BridgePayloadError(field: "stages", reason: "expected a list of 1 to \(maximumStages) stages")
        }
        var stages: [SessionStage] = []
        for (index, item) in items.enumerated() {
            let field = "stages[\(index)]"
            guard let object = item.objectValue else {
                throw BridgePayloadError(field: field, reason: "expected {name, minutes, interval}")
            }
            var stageFields = RequestFields(object)
            let name = try stageFields.optionalString("name") ?? "stage \(index + 1)"
            // The engine checks the name itself (its error names `stages[i].name`); this only
            // keeps an absurd string out of messages.
            guard name.count <= 64 else {
                throw BridgePayloadError(field: "\(field).name", reason: "longer than 64 characters")
            }
            guard
                let minutes = try duration(
                    stageFields.take("minutes"), field: "\(field).minutes", unit: 60, allowZero: false)
            else { throw BridgePayloadError(field: "\(field).minutes", reason: "missing") }
            let interval = try duration(
                stageFields.take("interval"), field: "\(field).interval", unit: 60, allowZero: false)
            if let extra = stageFields.unread.first {
                throw BridgePayloadError(field: "\(field).\(extra)", reason: "unknown field of a stage")
            }
            stages.append(SessionStage(name: name, length: minutes, bellInterval: interval))
        }
        return stages
    }

    private static func parseDevices(_ value: JSONValue?) throws(BridgePayloadError) -> [String]? {
        guard let value, value != .null else { return nil }
        guard case .array(let items) = value, items.count <= maximumDevices else {
            throw BridgePayloadError(field: "devices", reason: "expected a list of device names or ids")
        }
        guard !items.isEmpty else {
            throw BridgePayloadError(field: "devices", reason: "is empty; leave it out to use every paired device")
        }
        var names: [String] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue, !text.isEmpty, text.count <= 64 else {
                throw BridgePayloadError(
                    field: "devices[\(index)]", reason: "expected a device's friendly name or id (1 to 64 characters)")
            }
            names.append(text)
        }
        return names
    }
}
