/// Converts `HSVColour` to and from the hex strings Tuya colour DPs carry
/// (protocol/TUYA.md §4.1). The layout comes from the profile's `ColourFormat`, never
/// from guessing by length: a 12-digit string is `hsv16` on one product and the
/// short `rgbhsv` variant on another.
///
/// - `hsv16` (`colour_data_v2`): 12 hex `hhhh ssss vvvv`, h 0–360, s and v 0–1000.
///   Percent ↔ per-mille is ×10 / rounded ÷10, so every `HSVColour` survives a round trip exactly.
/// - `rgbhsv` (`colour_data`): 14 hex `rrggbb hhhh ss vv`, r, g, b, s, v 0–255, h 0–360.
///   The RGB part is computed from HSV when encoding and ignored when decoding: the HSV
///   part is what the device stores, and vendors fill RGB inconsistently. Percent → byte
///   is `round(p × 255 / 100)`, byte → percent `round(b × 100 / 255)`; 255/100 > 1, so
///   every percent survives a round trip exactly.
/// - Vendor quirk (§4.1, TL `asakuki_diffuser.yaml`): some `rgbhsv` devices write the hue
///   with the fewest hex digits, so a hue below 256 takes one byte and the string is 12 hex
///   `rrggbb hh ss vv`. Decoding with format `rgbhsv` accepts that form, reading `hh` as
///   degrees (0–255, not scaled). Encoding always writes the standard 14-digit form.
///   The same vendor's presets carry saturation `0x64` for full colour, i.e. 0–100 rather
///   than 0–255; that is not detectable from the string, so it is read as 0–255 (39 %).
///   Supporting it needs a third `ColourFormat` in the profile.
public enum ColourCodec {
    /// Lowercase hex in the given layout.
    public static func encode(_ colour: HSVColour, format: ColourFormat) -> String {
        let hue = clamp(colour.hue, 0, 360)
        let saturation = clamp(colour.saturation, 0, 100)
        let value = clamp(colour.value, 0, 100)
        switch format {
        case .hsv16:
            return hex(hue, digits: 4) + hex(saturation * 10, digits: 4) + hex(value * 10, digits: 4)
        case .rgbhsv:
            let (r, g, b) = rgb(hue: hue, saturation: saturation, value: value)
            return hex(r, digits: 2) + hex(g, digits: 2) + hex(b, digits: 2) + hex(hue, digits: 4)
                + hex(percentToByte(saturation), digits: 2) + hex(percentToByte(value), digits: 2)
        }
    }

    /// Reads a colour string; accepts upper and lower case. Throws `invalidColour` for a
    /// wrong length, a non-hex digit or a component outside its range.
    public static func decode(_ hex: String, format: ColourFormat) throws(MappingError) -> HSVColour {
        let length = hex.utf8.count
        func fail(_ reason: String) -> MappingError { .invalidColour(hex: hex, format: format, reason: reason) }
        switch (format, length) {
        case (.hsv16, 12), (.rgbhsv, 12), (.rgbhsv, 14): break
        case (.hsv16, _): throw fail("expected 12 hex digits hhhhssssvvvv, got \(length)")
        case (.rgbhsv, _):
            throw fail("expected 14 hex digits rrggbbhhhhssvv (or 12 with a one-byte hue), got \(length)")
        }
        var nibbles: [Int] = []
        for byte in hex.utf8 {
            guard let nibble = nibble(byte) else { throw fail("contains a non-hex character") }
            nibbles.append(nibble)
        }
        func field(_ start: Int, _ count: Int) -> Int {
            nibbles[start..<start + count].reduce(0) { $0 << 4 | $1 }
        }
        let hue: Int
        let saturation: Int
        let value: Int
        switch format {
        case .hsv16:
            (hue, saturation, value) = (field(0, 4), field(4, 4), field(8, 4))
            guard saturation <= 1000 else { throw fail("saturation \(saturation) exceeds 1000") }
            guard value <= 1000 else { throw fail("value \(value) exceeds 1000") }
        case .rgbhsv:
            (hue, saturation, value) =
                length == 14 ? (field(6, 4), field(10, 2), field(12, 2)) : (field(6, 2), field(8, 2), field(10, 2))
        }
        guard hue <= 360 else { throw fail("hue \(hue) exceeds 360") }
        let colour =
            switch format {
            case .hsv16: HSVColour(hue: hue, saturation: (saturation + 5) / 10, value: (value + 5) / 10)
            case .rgbhsv: HSVColour(hue: hue, saturation: byteToPercent(saturation), value: byteToPercent(value))
            }
        guard let colour else { throw fail("a component is out of range") }
        return colour
    }

    /// The RGB bytes for a colour, as `rgbhsv` strings carry them (standard HSV → RGB,
    /// each channel rounded to the nearest byte). Hue 360 is hue 0.
    public static func rgb(hue: Int, saturation: Int, value: Int) -> (red: Int, green: Int, blue: Int) {
        let h = Double(clamp(hue, 0, 360) % 360) / 60
        let v = Double(clamp(value, 0, 100)) / 100
        let chroma = v * Double(clamp(saturation, 0, 100)) / 100
        let x = chroma * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let m = v - chroma
        let (r, g, b): (Double, Double, Double) =
            switch Int(h) {
            case 0: (chroma, x, 0)
            case 1: (x, chroma, 0)
            case 2: (0, chroma, x)
            case 3: (0, x, chroma)
            case 4: (x, 0, chroma)
            default: (chroma, 0, x)
            }
        func byte(_ channel: Double) -> Int { clamp(Int(((channel + m) * 255).rounded()), 0, 255) }
        return (byte(r), byte(g), byte(b))
    }

    static func percentToByte(_ percent: Int) -> Int { (percent * 255 + 50) / 100 }
    static func byteToPercent(_ byte: Int) -> Int { (byte * 100 + 127) / 255 }

    private static func clamp(_ x: Int, _ low: Int, _ high: Int) -> Int { min(max(x, low), high) }

    /// The value of one ASCII hex digit, either case; nil for anything else.
    public static func nibble(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    private static func hex(_ number: Int, digits: Int) -> String {
        let text = String(number, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
