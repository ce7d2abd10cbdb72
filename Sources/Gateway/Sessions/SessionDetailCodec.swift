import SessionEngine
import TuyaCore

/// Why a stored session could not be read back: the session and the field at fault, so a
/// hand-edited or damaged row is reported, never a crash.
public struct SessionDetailError: Error, Hashable, Sendable, CustomStringConvertible {
    public var session: String
    public var field: String
    public var reason: String

    public var description: String {
        "stored session \(session): \(field) \(reason); the row is damaged (remove it or restore a backup)"
    }
}

/// The engine's session values as the JSON kept in a stored session's `detail` and cue
/// log. Written by hand rather than through `Codable`: durations are kept as whole
/// milliseconds (a `Duration`'s own encoding is two 64-bit halves that JSON integers
/// cannot always carry), and every field read back is checked.
enum SessionDetailCodec {
    // MARK: - Detail

    static func detail(of record: SessionRecord) -> JSONValue {
        .object([
            "configuration": configuration(record.configuration),
            "session": resolved(record.session),
            "captured": .object(
                Dictionary(uniqueKeysWithValues: record.captured.map { ($0.key.rawValue, state($0.value)) })),
        ])
    }

    struct Detail {
        var configuration: SessionConfiguration
        var session: ResolvedSession
        var captured: [DeviceID: DeviceState]
    }

    static func detail(_ value: JSONValue, session id: String) throws(SessionDetailError) -> Detail {
        let reader = Reader(session: id)
        let object = try reader.object(value, field: "detail")
        let configuration = try reader.configuration(object["configuration"], field: "detail.configuration")
        let session = try reader.resolved(object["session"], field: "detail.session")
        var captured: [DeviceID: DeviceState] = [:]
        if let members = object["captured"], members != .null {
            for (key, value) in try reader.object(members, field: "detail.captured") {
                guard let device = DeviceID(key) else {
                    throw reader.error("detail.captured", "has \"\(key.prefix(64))\", which is not a device id")
                }
                captured[device] = try reader.state(value, field: "detail.captured.\(key)")
            }
        }
        return Detail(configuration: configuration, session: session, captured: captured)
    }

    // MARK: - Writing

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    private static func ms(_ duration: Duration?) -> JSONValue {
        duration.map { .integer(milliseconds($0)) } ?? .null
    }

    static func configuration(_ configuration: SessionConfiguration) -> JSONValue {
        var fields: [String: JSONValue] = ["warm_up_ms": ms(configuration.warmUp)]
        switch configuration.length {
        case .stages(let stages):
            fields["kind"] = .string("stages")
            fields["stages"] = .array(stages.map(stage))
        case .openEnded(let interval):
            fields["kind"] = .string("open_ended")
            fields["interval_ms"] = ms(interval)
        case .until(let time, let interval):
            fields["kind"] = .string("until")
            fields["until"] = .string(time.description)
            fields["interval_ms"] = ms(interval)
        }
        return .object(fields)
    }

    static func resolved(_ session: ResolvedSession) -> JSONValue {
        .object([
            "warm_up_ms": ms(session.warmUp), "stages": .array(session.stages.map(stage)),
            "open_ended": .bool(session.isOpenEnded),
        ])
    }

    private static func stage(_ stage: SessionStage) -> JSONValue {
        .object(["name": .string(stage.name), "length_ms": ms(stage.length), "interval_ms": ms(stage.bellInterval)])
    }

    static func state(_ state: DeviceState) -> JSONValue {
        func int(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
        func bool(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func colour(_ value: HSVColour?) -> JSONValue {
            value.map { .array([.integer(Int64($0.hue)), .integer(Int64($0.saturation)), .integer(Int64($0.value))]) }
                ?? .null
        }
        switch state {
        case .light(let light):
            return .object([
                "kind": .string("light"), "power": bool(light.power), "mode": string(light.mode),
                "brightness": int(light.brightness), "color_temp": int(light.colorTemperature),
                "colour": colour(light.colour), "scene": string(light.scene), "countdown": int(light.countdown),
            ])
        case .diffuser(let diffuser):
            return .object([
                "kind": .string("diffuser"), "power": bool(diffuser.power), "mist": bool(diffuser.mist),
                "mist_mode": string(diffuser.mistMode), "led_power": bool(diffuser.ledPower),
                "led_mode": string(diffuser.ledMode), "led_brightness": int(diffuser.ledBrightness),
                "led_colour": colour(diffuser.ledColour), "timer": string(diffuser.timer),
                "minutes_left": int(diffuser.minutesLeft), "faults": .array(diffuser.faults.map(JSONValue.string)),
            ])
        }
    }

    // MARK: - Cue log words

    /// `start`, `stage_start:0`, `bell:0:1`, `bell_return:0:1`, `end`, `ramp_step:3:10`,
    /// `end_effect`, `restore`.
    static func kind(_ kind: SessionCue.Kind) -> String {
        switch kind {
        case .start: "start"
        case .stageStart(let stage): "stage_start:\(stage)"
        case .bell(let stage, let ring): "bell:\(stage):\(ring)"
        case .bellReturn(let stage, let ring): "bell_return:\(stage):\(ring)"
        case .end: "end"
        case .rampStep(let step, let count): "ramp_step:\(step):\(count)"
        case .endEffect: "end_effect"
        case .restore: "restore"
        }
    }

    static func kind(parsing text: String) -> SessionCue.Kind? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let numbers = parts.dropFirst().compactMap { Int($0) }.filter { $0 >= 0 }
        guard numbers.count == parts.count - 1 else { return nil }
        switch (parts[0], numbers.count) {
        case ("start", 0): return .start
        case ("stage_start", 1): return .stageStart(stage: numbers[0])
        case ("bell", 2): return .bell(stage: numbers[0], ring: numbers[1])
        case ("bell_return", 2): return .bellReturn(stage: numbers[0], ring: numbers[1])
        case ("end", 0): return .end
        case ("ramp_step", 2): return .rampStep(step: numbers[0], of: numbers[1])
        case ("end_effect", 0): return .endEffect
        case ("restore", 0): return .restore
        default: return nil
        }
    }

    /// `marked`, `sent`, `confirmed`, `cancelled`, `skipped:unavailable:<availability>`,
    /// `skipped:unknown_device`, `skipped:nothing_captured`, `skipped:not_applied:<why>`.
    static func outcome(_ outcome: CueOutcome) -> String {
        switch outcome {
        case .marked: "marked"
        case .sent: "sent"
        case .confirmed: "confirmed"
        case .cancelled: "cancelled"
        case .skipped(.unavailable(let availability)): "skipped:unavailable:\(availability.rawValue)"
        case .skipped(.unknownDevice): "skipped:unknown_device"
        case .skipped(.nothingCaptured): "skipped:nothing_captured"
        case .skipped(.notApplied(let reason)): "skipped:not_applied:\(reason)"
        }
    }

    static func outcome(parsing text: String) -> CueOutcome? {
        switch text {
        case "marked": return .marked
        case "sent": return .sent
        case "confirmed": return .confirmed
        case "cancelled": return .cancelled
        case "skipped:unknown_device": return .skipped(.unknownDevice)
        case "skipped:nothing_captured": return .skipped(.nothingCaptured)
        default: break
        }
        if text.hasPrefix("skipped:unavailable:") {
            return Availability(rawValue: String(text.dropFirst("skipped:unavailable:".count)))
                .map { .skipped(.unavailable($0)) }
        }
        if text.hasPrefix("skipped:not_applied:") {
            return .skipped(.notApplied(String(text.dropFirst("skipped:not_applied:".count))))
        }
        return nil
    }
}

/// Reads checked values out of stored JSON, naming the field of every failure.
private struct Reader {
    let session: String

    func error(_ field: String, _ reason: String) -> SessionDetailError {
        SessionDetailError(session: session, field: field, reason: reason)
    }

    func object(_ value: JSONValue?, field: String) throws(SessionDetailError) -> [String: JSONValue] {
        guard let members = value?.objectValue else { throw error(field, "is missing or not an object") }
        return members
    }

    func milliseconds(_ value: JSONValue?, field: String) throws(SessionDetailError) -> Duration? {
        guard let value, value != .null else { return nil }
        // Within ±10 years: larger is not a session length and could overflow.
        guard let number = value.int64Value, abs(number) <= 315_360_000_000 else {
            throw error(field, "is not a whole number of milliseconds")
        }
        return .milliseconds(number)
    }

    func requiredMilliseconds(_ value: JSONValue?, field: String) throws(SessionDetailError) -> Duration {
        guard let duration = try milliseconds(value, field: field) else { throw error(field, "is missing") }
        return duration
    }

    func string(_ value: JSONValue?, field: String) throws(SessionDetailError) -> String? {
        guard let value, value != .null else { return nil }
        guard let text = value.stringValue else { throw error(field, "is not a string") }
        return text
    }

    func bool(_ value: JSONValue?, field: String) throws(SessionDetailError) -> Bool? {
        guard let value, value != .null else { return nil }
        guard let flag = value.boolValue else { throw error(field, "is not true or false") }
        return flag
    }

    func int(_ value: JSONValue?, field: String) throws(SessionDetailError) -> Int? {
        guard let value, value != .null else { return nil }
        guard let number = value.int64Value, let int = Int(exactly: number), abs(int) <= 1_000_000_000 else {
            throw error(field, "is not a whole number")
        }
        return int
    }

    func stages(_ value: JSONValue?, field: String) throws(SessionDetailError) -> [SessionStage] {
        guard case .array(let items)? = value else { throw error(field, "is missing or not a list") }
        var stages: [SessionStage] = []
        for (index, item) in items.enumerated() {
            let name = "\(field)[\(index)]"
            let object = try object(item, field: name)
            guard let stageName = try string(object["name"], field: "\(name).name") else {
                throw error("\(name).name", "is missing")
            }
            stages.append(
                SessionStage(
                    name: stageName, length: try requiredMilliseconds(object["length_ms"], field: "\(name).length_ms"),
                    bellInterval: try milliseconds(object["interval_ms"], field: "\(name).interval_ms")))
        }
        return stages
    }

    func configuration(_ value: JSONValue?, field: String) throws(SessionDetailError) -> SessionConfiguration {
        let object = try object(value, field: field)
        let warmUp = try milliseconds(object["warm_up_ms"], field: "\(field).warm_up_ms")
        let interval = try milliseconds(object["interval_ms"], field: "\(field).interval_ms")
        switch try string(object["kind"], field: "\(field).kind") {
        case "stages":
            return SessionConfiguration(
                warmUp: warmUp, length: .stages(try stages(object["stages"], field: "\(field).stages")))
        case "open_ended":
            return SessionConfiguration(warmUp: warmUp, length: .openEnded(bellInterval: interval))
        case "until":
            let text = try string(object["until"], field: "\(field).until") ?? ""
            guard let time = try? TimeOfDay(parsing: text) else { throw error("\(field).until", "is not HH:MM") }
            return SessionConfiguration(warmUp: warmUp, length: .until(time, bellInterval: interval))
        default:
            throw error("\(field).kind", "is not stages, open_ended or until")
        }
    }

    func resolved(_ value: JSONValue?, field: String) throws(SessionDetailError) -> ResolvedSession {
        let object = try object(value, field: field)
        let stages = try stages(object["stages"], field: "\(field).stages")
        guard !stages.isEmpty else { throw error("\(field).stages", "is empty") }
        return ResolvedSession(
            warmUp: try milliseconds(object["warm_up_ms"], field: "\(field).warm_up_ms") ?? .zero, stages: stages,
            isOpenEnded: try bool(object["open_ended"], field: "\(field).open_ended") ?? false)
    }

    func colour(_ value: JSONValue?, field: String) throws(SessionDetailError) -> HSVColour? {
        guard let value, value != .null else { return nil }
        guard case .array(let parts) = value, parts.count == 3,
            let hue = try int(parts[0], field: field), let saturation = try int(parts[1], field: field),
            let brightness = try int(parts[2], field: field),
            let colour = HSVColour(hue: hue, saturation: saturation, value: brightness)
        else { throw error(field, "is not [hue, saturation, value]") }
        return colour
    }

    func state(_ value: JSONValue, field: String) throws(SessionDetailError) -> DeviceState {
        let object = try object(value, field: field)
        switch try string(object["kind"], field: "\(field).kind") {
        case "light":
            return .light(
                LightState(
                    power: try bool(object["power"], field: "\(field).power"),
                    mode: try string(object["mode"], field: "\(field).mode"),
                    brightness: try int(object["brightness"], field: "\(field).brightness"),
                    colorTemperature: try int(object["color_temp"], field: "\(field).color_temp"),
                    colour: try colour(object["colour"], field: "\(field).colour"),
                    scene: try string(object["scene"], field: "\(field).scene"),
                    countdown: try int(object["countdown"], field: "\(field).countdown")))
        case "diffuser":
            var faults: [String] = []
            if case .array(let items)? = object["faults"] {
                for item in items {
                    guard let fault = item.stringValue else {
                        throw error("\(field).faults", "is not a list of strings")
                    }
                    faults.append(fault)
                }
            }
            return .diffuser(
                DiffuserState(
                    power: try bool(object["power"], field: "\(field).power"),
                    mist: try bool(object["mist"], field: "\(field).mist"),
                    mistMode: try string(object["mist_mode"], field: "\(field).mist_mode"),
                    ledPower: try bool(object["led_power"], field: "\(field).led_power"),
                    ledMode: try string(object["led_mode"], field: "\(field).led_mode"),
                    ledBrightness: try int(object["led_brightness"], field: "\(field).led_brightness"),
                    ledColour: try colour(object["led_colour"], field: "\(field).led_colour"),
                    timer: try string(object["timer"], field: "\(field).timer"),
                    minutesLeft: try int(object["minutes_left"], field: "\(field).minutes_left"), faults: faults))
        default:
            throw error("\(field).kind", "is not light or diffuser")
        }
    }
}
