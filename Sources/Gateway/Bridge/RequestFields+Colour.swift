import TuyaCore

/// A colour in `/set` (`color`, `led_color`), in every form zigbee2mqtt users write:
///
/// - `{"hue":30,"saturation":80}` (or `h`/`s`), with an optional `brightness`/`v` 0–100
/// - `{"hex":"#ff8800"}`, `{"r":255,"g":136,"b":0}`, `{"rgb":"255,136,0"}`
/// - a string: a colour name (`orange`, `sky blue`: CSS/X11 names), `#rrggbb`, `#rgb` or `r,g,b`
///
/// As in zigbee2mqtt, red, green and blue give the hue and saturation; how bright the light
/// shines is its `brightness` (or its current level), not how dark the colour is, so
/// `#800000` and `#ff0000` are the same red.
extension RequestFields {
    mutating func colour(_ key: String, defaultValue: Int = 100) throws(BridgePayloadError) -> HSVColour? {
        switch take(key) {
        case nil, .null?: return nil
        case .string(let text)?:
            return try ColourText.parse(text, field: key, value: defaultValue)
        case .object(let members)?:
            var inner = RequestFields(members)
            if inner.has("hex") || inner.has("r") || inner.has("g") || inner.has("b") || inner.has("rgb") {
                return try Self.rgbObject(&inner, key: key, value: defaultValue)
            }
            let longHue = try inner.rounded("hue", in: 0...360)
            let shortHue = try inner.rounded("h", in: 0...360)
            let longSaturation = try inner.rounded("saturation", in: 0...100)
            let shortSaturation = try inner.rounded("s", in: 0...100)
            let longValue = try inner.integer("brightness", in: 0...100)
            let shortValue = try inner.integer("v", in: 0...100)
            let hue = longHue ?? shortHue
            let saturation = longSaturation ?? shortSaturation
            let value = longValue ?? shortValue ?? defaultValue
            if let unknown = inner.unread.first {
                throw BridgePayloadError(
                    field: "\(key).\(unknown)", reason: "unknown field (use hue and saturation, hex, or r, g and b)")
            }
            guard let hue, let saturation, let colour = HSVColour(hue: hue, saturation: saturation, value: value) else {
                throw BridgePayloadError(
                    field: key, reason: "needs hue (0–360) and saturation (0–100), hex (#rrggbb), or r, g and b (0–255)"
                )
            }
            return colour
        default:
            throw BridgePayloadError(
                field: key,
                reason:
                    "expected a colour name, \"#rrggbb\", \"r,g,b\" or an object like {\"hue\":30,\"saturation\":80}")
        }
    }

    private static func rgbObject(_ inner: inout RequestFields, key: String, value: Int) throws(BridgePayloadError)
        -> HSVColour
    {
        let colour: HSVColour
        if inner.has("hex") {
            guard case .string(let text)? = inner.take("hex") else {
                throw BridgePayloadError(field: "\(key).hex", reason: "expected text like \"#ff8800\"")
            }
            guard let rgb = ColourText.hex(text) else {
                throw BridgePayloadError(
                    field: "\(key).hex", reason: "\"\(ColourText.shown(text))\" is not #rrggbb or #rgb")
            }
            colour = try ColourText.checked(ColourText.hsv(rgb, value: value), field: "\(key).hex")
        } else if inner.has("rgb") {
            guard case .string(let text)? = inner.take("rgb"), let rgb = ColourText.triple(text) else {
                throw BridgePayloadError(field: "\(key).rgb", reason: "expected \"r,g,b\", each 0–255")
            }
            colour = try ColourText.checked(ColourText.hsv(rgb, value: value), field: "\(key).rgb")
        } else {
            var parts: [Int] = []
            for channel in ["r", "g", "b"] {
                let given: Int?
                do throws(BridgePayloadError) {
                    given = try inner.rounded(channel, in: 0...255)
                } catch {
                    throw BridgePayloadError(field: "\(key).\(channel)", reason: error.reason)
                }
                guard let number = given else {
                    throw BridgePayloadError(field: "\(key).\(channel)", reason: "missing: give r, g and b (0–255)")
                }
                parts.append(number)
            }
            colour = try ColourText.checked(ColourText.hsv((parts[0], parts[1], parts[2]), value: value), field: key)
        }
        // Like zigbee2mqtt, a brightness may come with the colour.
        let brightness = try inner.integer("brightness", in: 0...100)
        if let unknown = inner.unread.first {
            throw BridgePayloadError(
                field: "\(key).\(unknown)", reason: "unknown field beside hex, rgb or r, g and b")
        }
        guard let brightness else { return colour }
        return HSVColour(hue: colour.hue, saturation: colour.saturation, value: brightness) ?? colour
    }

    fileprivate func has(_ key: String) -> Bool { object[key] != nil }
}

/// Colours written as text: names, hex and `r,g,b`. Pure.
enum ColourText {
    typealias RGB = (red: Int, green: Int, blue: Int)

    static func parse(_ text: String, field: String, value: Int) throws(BridgePayloadError) -> HSVColour {
        guard !text.isEmpty, text.utf8.count <= 32 else {
            throw BridgePayloadError(field: field, reason: "expected a colour name, \"#rrggbb\" or \"r,g,b\"")
        }
        if text.hasPrefix("#") {
            guard let rgb = hex(text) else {
                throw BridgePayloadError(field: field, reason: "\"\(shown(text))\" is not #rrggbb or #rgb")
            }
            return try checked(hsv(rgb, value: value), field: field)
        }
        if text.contains(",") {
            guard let rgb = triple(text) else {
                throw BridgePayloadError(field: field, reason: "\"\(shown(text))\" is not r,g,b with each 0–255")
            }
            return try checked(hsv(rgb, value: value), field: field)
        }
        let name = String(text.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" })
        guard let rgb = names[name] else {
            let close = names.keys.filter { $0.hasPrefix(String(name.prefix(3))) }.sorted().prefix(4)
            let hint = close.isEmpty ? "" : " (did you mean \(close.joined(separator: ", "))?)"
            throw BridgePayloadError(
                field: field,
                reason: "unknown colour name \"\(shown(text))\"\(hint); use a CSS colour name, \"#rrggbb\" or \"r,g,b\""
            )
        }
        return try checked(hsv(rgb, value: value), field: field)
    }

    /// A colour the conversion could not make (never, by construction) is refused, not forced.
    static func checked(_ colour: HSVColour?, field: String) throws(BridgePayloadError) -> HSVColour {
        guard let colour else { throw BridgePayloadError(field: field, reason: "not a colour a light can show") }
        return colour
    }

    /// `#rrggbb`, `rrggbb`, `#rgb`.
    static func hex(_ text: String) -> RGB? {
        var digits = Array(text.utf8)
        if digits.first == UInt8(ascii: "#") { digits.removeFirst() }
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        guard digits.count == 6 else { return nil }
        var values: [Int] = []
        for index in stride(from: 0, to: 6, by: 2) {
            guard let high = ColourCodec.nibble(digits[index]), let low = ColourCodec.nibble(digits[index + 1]) else {
                return nil
            }
            values.append(high * 16 + low)
        }
        return (values[0], values[1], values[2])
    }

    /// `255,136,0` (spaces allowed around the numbers).
    static func triple(_ text: String) -> RGB? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var values: [Int] = []
        for part in parts {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard (1...3).contains(trimmed.utf8.count), trimmed.utf8.allSatisfy({ (48...57).contains($0) }),
                let number = Int(trimmed), (0...255).contains(number)
            else { return nil }
            values.append(number)
        }
        return (values[0], values[1], values[2])
    }

    /// Hue and saturation from red, green and blue; `value` is the brightness to shine at.
    static func hsv(_ rgb: RGB, value: Int) -> HSVColour? {
        let (r, g, b) = (Double(rgb.red) / 255, Double(rgb.green) / 255, Double(rgb.blue) / 255)
        let maximum = max(r, g, b)
        let delta = maximum - min(r, g, b)
        var hue = 0.0
        if delta > 0 {
            if maximum == r {
                hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6)
            } else if maximum == g {
                hue = 60 * ((b - r) / delta + 2)
            } else {
                hue = 60 * ((r - g) / delta + 4)
            }
        }
        if hue < 0 { hue += 360 }
        let saturation = maximum > 0 ? delta / maximum : 0
        let whole = (hue: Int(hue.rounded()) % 360, saturation: Int((saturation * 100).rounded()))
        // In range by construction (hue 0–359, saturation 0–100, value clamped), so never nil.
        return HSVColour(hue: whole.hue, saturation: whole.saturation, value: min(100, max(0, value)))
    }

    /// Untrusted text cut short for a message.
    static func shown(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(32).map(Character.init))
    }

    /// CSS/X11 colour names a light can show (no black, greys or browns: a bulb shows
    /// them as white or orange), lower-case without spaces.
    static let names: [String: RGB] = [
        "red": (255, 0, 0), "crimson": (220, 20, 60), "tomato": (255, 99, 71), "coral": (255, 127, 80),
        "salmon": (250, 128, 114), "orangered": (255, 69, 0), "orange": (255, 165, 0),
        "darkorange": (255, 140, 0), "gold": (255, 215, 0), "yellow": (255, 255, 0), "amber": (255, 191, 0),
        "lime": (0, 255, 0), "green": (0, 128, 0), "chartreuse": (127, 255, 0), "springgreen": (0, 255, 127),
        "seagreen": (46, 139, 87), "olive": (128, 128, 0), "teal": (0, 128, 128), "turquoise": (64, 224, 208),
        "cyan": (0, 255, 255), "aqua": (0, 255, 255), "skyblue": (135, 206, 235), "deepskyblue": (0, 191, 255),
        "dodgerblue": (30, 144, 255), "royalblue": (65, 105, 225), "blue": (0, 0, 255), "navy": (0, 0, 128),
        "indigo": (75, 0, 130), "purple": (128, 0, 128), "violet": (238, 130, 238), "orchid": (218, 112, 214),
        "magenta": (255, 0, 255), "fuchsia": (255, 0, 255), "pink": (255, 192, 203), "hotpink": (255, 105, 180),
        "deeppink": (255, 20, 147), "lavender": (230, 230, 250), "maroon": (128, 0, 0), "white": (255, 255, 255),
    ]
}
