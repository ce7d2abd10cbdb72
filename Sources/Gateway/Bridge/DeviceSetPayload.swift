import TuyaCore
import TuyaWire

/// The JSON a user or Home Assistant publishes on `youll/<device>/set`, turned into a
/// typed command. Shaped like zigbee2mqtt's so its users know it:
///
/// Lights: `{"state":"ON","brightness":40,"color_temp":2700,"color":{"hue":30,"saturation":80},"scene":"night","countdown":600}`
/// (`color` also as `{"hex":"#ff8800"}`, `{"r":255,"g":136,"b":0}`, `{"rgb":"255,136,0"}` or a
/// string: a colour name, `#rrggbb` or `r,g,b`; see `RequestFields.colour`)
/// Diffusers: `{"state":"ON","mist":"ON","mist_mode":"large","led":"ON","led_brightness":20,"led_color":{"hue":30,"saturation":80},"timer":"1"}`
///
/// `brightness` is percent (0–100). `color_temp` is kelvin; values below 1000 are read
/// as mireds (zigbee2mqtt's unit) and converted. A light also takes `effect` for `scene`
/// and fractional hue and saturation (rounded), which is how Home Assistant's JSON-schema
/// light writes them; its `transition` (seconds) is accepted and ignored, since Tuya bulbs
/// have none. `state` also takes `"TOGGLE"`, which
/// needs the current state. Unknown keys are refused rather than ignored, so a typo is
/// reported instead of silently doing nothing.
public enum DeviceSetPayload {
    /// Fields the state payload shows that the device reports and no command sets, with
    /// what to do instead (issue 14 item 15).
    static func readOnly(_ category: DeviceCategory) -> [String: String] {
        switch category {
        case .light:
            [
                "color_mode": "it follows the last of color_temp, color or scene that was set",
                "work_mode": "it follows the last of color_temp, color or scene that was set",
            ]
        case .diffuser:
            [
                "minutes_left": "the device counts it down; set timer instead",
                "faults": "the device reports them", "problem": "the device reports it",
                "led_mode": "the device reports it",
            ]
        }
    }

    /// Parses raw payload bytes (untrusted) for a device of `category`.
    public static func parse(
        _ payload: [UInt8], category: DeviceCategory, current: DeviceState? = nil
    ) throws(BridgePayloadError) -> DeviceCommand {
        let value: JSONValue
        do {
            value = try CompactJSON.decode(payload)
        } catch {
            throw BridgePayloadError(field: "payload", reason: "not JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw BridgePayloadError(field: "payload", reason: "expected a JSON object such as {\"state\":\"ON\"}")
        }
        return try parse(object, category: category, current: current)
    }

    /// Whether parsing `object` reads the device's current state: a `TOGGLE` (any case) in
    /// any field, or a `color` (a light's colour without a brightness keeps the brightness
    /// it has now). Every other command parses the same whatever that state is, so the
    /// bridge asks the controller for it only when this says so.
    public static func needsCurrentState(_ object: [String: JSONValue]) -> Bool {
        object.contains { key, value in
            if key == "color" { return true }
            guard case .string(let text) = value, text.utf8.count == 6 else { return false }
            return text.uppercased() == "TOGGLE"
        }
    }

    public static func parse(
        _ object: [String: JSONValue], category: DeviceCategory, current: DeviceState? = nil
    ) throws(BridgePayloadError) -> DeviceCommand {
        var fields = RequestFields(object)
        let command: DeviceCommand
        switch category {
        case .light: command = .light(try light(&fields, current: current))
        case .diffuser: command = .diffuser(try diffuser(&fields, current: current))
        }
        if let unknown = fields.unread.first {
            let kind = category == .light ? "a light" : "a diffuser"
            if let why = Self.readOnly(category)[unknown] {
                throw BridgePayloadError(field: unknown, reason: "read-only: \(why)")
            }
            let settable = fields.read.sorted()
            throw BridgePayloadError(
                field: unknown,
                reason: "unknown field for \(kind)" + KeySuggestion.hint(for: unknown, among: settable)
                    + "; settable: \(settable.joined(separator: ", "))")
        }
        let isEmpty: Bool
        switch command {
        case .light(let light): isEmpty = light.isEmpty
        case .diffuser(let diffuser): isEmpty = diffuser.isEmpty
        }
        guard !isEmpty else { throw BridgePayloadError(field: "payload", reason: "no field to set") }
        return command
    }

    /// A light's `/set` fields; `state: TOGGLE` and a colour without a brightness read `current`.
    private static func light(_ fields: inout RequestFields, current: DeviceState?) throws(BridgePayloadError)
        -> LightCommand
    {
        var currentPower: Bool?
        var currentBrightness: Int?
        if case .light(let state)? = current {
            currentPower = state.power
            currentBrightness = state.brightness
        }
        var light = LightCommand()
        light.power = try fields.onOff("state", current: currentPower)
        light.brightness = try fields.integer("brightness", in: 0...100)
        light.colorTemperature = try fields.kelvin("color_temp")
        // A colour picked without a brightness keeps the brightness the light has now
        // (Home Assistant's colour wheel sends hue and saturation only).
        light.colour = try fields.colour("color", defaultValue: currentBrightness.map { max(1, $0) } ?? 100)
        let scene = try fields.string("scene")
        // Home Assistant's JSON-schema light names the scene `effect`.
        let effect = try fields.string("effect")
        light.scene = scene ?? effect
        light.countdown = try fields.integer("countdown", in: 0...86_400)
        // Accepted and ignored: Tuya bulbs have no transition time (ramps are the
        // timer's job), and Home Assistant before 2025.5 sends it whatever the config says.
        _ = try fields.rounded("transition", in: 0...3_600)
        return light
    }

    /// A diffuser's `/set` fields; `TOGGLE` reads `current`.
    private static func diffuser(_ fields: inout RequestFields, current: DeviceState?) throws(BridgePayloadError)
        -> DiffuserCommand
    {
        var state = DiffuserState()
        if case .diffuser(let reported)? = current { state = reported }
        var diffuser = DiffuserCommand()
        diffuser.power = try fields.onOff("state", current: state.power)
        diffuser.mist = try fields.onOff("mist", current: state.mist)
        diffuser.ledPower = try fields.onOff("led", current: state.ledPower)
        diffuser.mistMode = try fields.string("mist_mode")
        diffuser.ledBrightness = try fields.integer("led_brightness", in: 0...100)
        diffuser.ledColour = try fields.colour("led_color")
        diffuser.timer = try fields.string("timer")
        return diffuser
    }
}

/// The `/set` fields (the request fields' reader is shared with `BridgeRequest`).
extension RequestFields {
    /// "ON"/"OFF"/"TOGGLE" (any case) or a JSON bool.
    mutating func onOff(_ key: String, current: Bool?) throws(BridgePayloadError) -> Bool? {
        switch take(key) {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string(let text)?:
            switch text.uppercased() {
            case "ON": return true
            case "OFF": return false
            case "TOGGLE":
                guard let current else {
                    throw BridgePayloadError(
                        field: key, reason: "TOGGLE needs the device's current state, which is not known yet")
                }
                return !current
            default: break
            }
        default: break
        }
        throw BridgePayloadError(field: key, reason: "expected \"ON\", \"OFF\" or \"TOGGLE\"")
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(BridgePayloadError) -> Int? {
        switch take(key) {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.int64Value, let int = Int(exactly: number), range.contains(int) else {
                throw BridgePayloadError(
                    field: key, reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return int
        }
    }

    /// A number rounded to the nearest whole one (Home Assistant sends `{"h":29.8,"s":80.0}`).
    mutating func rounded(_ key: String, in range: ClosedRange<Int>) throws(BridgePayloadError) -> Int? {
        switch take(key) {
        case nil, .null?: return nil
        case .double(let number)? where number.isFinite:
            let whole = number.rounded()
            guard whole >= Double(range.lowerBound), whole <= Double(range.upperBound) else { break }
            return Int(whole)
        case .integer(let number)?:
            guard let int = Int(exactly: number), range.contains(int) else { break }
            return int
        default: break
        }
        throw BridgePayloadError(
            field: key, reason: "expected a number from \(range.lowerBound) to \(range.upperBound)")
    }

    mutating func string(_ key: String) throws(BridgePayloadError) -> String? {
        switch take(key) {
        case nil, .null?: return nil
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 64: return text
        case .integer(let number)?: return String(number)
        default: throw BridgePayloadError(field: key, reason: "expected a label (text of 1 to 64 bytes)")
        }
    }

    /// Kelvin; a value below 1000 is mireds (zigbee2mqtt) and is converted.
    mutating func kelvin(_ key: String) throws(BridgePayloadError) -> Int? {
        guard let value = try integer(key, in: 1...20_000) else { return nil }
        guard value < 1000 else { return value }
        guard value >= 50 else { throw BridgePayloadError(field: key, reason: "\(value) mireds is outside 50–999") }
        return Int((1_000_000.0 / Double(value)).rounded())
    }
}
