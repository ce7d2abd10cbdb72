import Testing
import TuyaCore

@Suite("ColourCodec")
struct ColourCodecTests {
    let c = TestProfiles.colour

    @Test("hsv16 writes hhhh ssss vvvv with saturation and value in per mille (TUYA.md §4.1)")
    func hsv16Vectors() {
        #expect(ColourCodec.encode(c(0, 100, 100), format: .hsv16) == "000003e803e8")
        #expect(ColourCodec.encode(c(240, 100, 100), format: .hsv16) == "00f003e803e8")
        #expect(ColourCodec.encode(c(360, 50, 1), format: .hsv16) == "016801f4000a")
        #expect(ColourCodec.encode(c(0, 0, 0), format: .hsv16) == "000000000000")
    }

    @Test("rgbhsv writes rrggbb hhhh ss vv with RGB computed from HSV (TUYA.md §4.1)")
    func rgbhsvVectors() {
        #expect(ColourCodec.encode(c(0, 100, 100), format: .rgbhsv) == "ff00000000ffff")
        #expect(ColourCodec.encode(c(120, 100, 50), format: .rgbhsv) == "0080000078ff80")
        #expect(ColourCodec.encode(c(240, 100, 100), format: .rgbhsv) == "0000ff00f0ffff")
        #expect(ColourCodec.encode(c(0, 0, 100), format: .rgbhsv) == "ffffff000000ff")
        #expect(ColourCodec.encode(c(360, 100, 100), format: .rgbhsv) == "ff00000168ffff")
    }

    @Test(
        "the RGB of the primary and secondary hues is exact",
        arguments: [
            (0, 0xff, 0, 0), (60, 0xff, 0xff, 0), (120, 0, 0xff, 0), (180, 0, 0xff, 0xff),
            (240, 0, 0, 0xff), (300, 0xff, 0, 0xff), (360, 0xff, 0, 0),
        ])
    func primaries(hue: Int, red: Int, green: Int, blue: Int) {
        let rgb = ColourCodec.rgb(hue: hue, saturation: 100, value: 100)
        #expect(rgb.red == red && rgb.green == green && rgb.blue == blue)
    }

    @Test("decoding reads upper and lower case alike")
    func caseInsensitive() throws {
        #expect(try ColourCodec.decode("00F003E803E8", format: .hsv16) == c(240, 100, 100))
        #expect(try ColourCodec.decode("00f003e803e8", format: .hsv16) == c(240, 100, 100))
        #expect(try ColourCodec.decode("0000FF00F0FFFF", format: .rgbhsv) == c(240, 100, 100))
    }

    @Test("rgbhsv decoding takes HSV from the HSV fields and ignores inconsistent RGB")
    func rgbIgnored() throws {
        #expect(try ColourCodec.decode("12345600f0ff80", format: .rgbhsv) == c(240, 100, 50))
    }

    @Test("12-hex rgbhsv with a one-byte hue is read as rrggbb hh ss vv (vendor quirk, TUYA.md §4.1)")
    func oneByteHue() throws {
        // Strings a diffuser reports (TL asakuki_diffuser.yaml colour presets).
        #expect(try ColourCodec.decode("0000fff064ff", format: .rgbhsv) == c(240, 39, 100))
        #expect(try ColourCodec.decode("ffa5002764ff", format: .rgbhsv) == c(39, 39, 100))
        #expect(try ColourCodec.decode("4b008201136482", format: .rgbhsv) == c(275, 39, 51))
    }

    @Test(
        "wrong lengths are rejected",
        arguments: [
            ("", ColourFormat.hsv16), ("00f003e803e", .hsv16), ("00f003e803e80", .hsv16), ("0000ff00f0ffff", .hsv16),
            ("0000ff00f0fff", .rgbhsv), ("0000ff00f0fffff", .rgbhsv), ("00f003e803", .rgbhsv),
        ])
    func wrongLength(hex: String, format: ColourFormat) {
        #expect(throws: MappingError.self) { try ColourCodec.decode(hex, format: format) }
    }

    @Test(
        "non-hex characters, signs and non-ASCII are rejected",
        arguments: [
            "00f003e803eg", "+0f003e803e8", " 0f003e803e8", "-0f003e803e8", "00f003e8 3e8", "ÿÿÿÿÿÿ",
        ])
    func nonHex(hex: String) {
        #expect(throws: MappingError.self) { try ColourCodec.decode(hex, format: .hsv16) }
    }

    @Test("components outside their range are rejected with the reason")
    func outOfRange() {
        for (hex, format, word) in [
            ("016903e803e8", ColourFormat.hsv16, "hue"), ("000003e903e8", .hsv16, "saturation"),
            ("00000000" + "03e9", .hsv16, "value"), ("ff0000ffffffff", .rgbhsv, "hue"),
            ("ff00000169ffff", .rgbhsv, "hue"),
        ] {
            #expect {
                try ColourCodec.decode(hex, format: format)
            } throws: { error in
                "\(error)".contains(word) && "\(error)".contains(format.rawValue)
            }
        }
    }

    @Test("every hue, saturation and value survives an hsv16 round trip exactly")
    func hsv16RoundTrip() throws {
        var failures: [HSVColour] = []
        for hue in 0...360 {
            for level in 0...100 {
                for colour in [c(hue, level, (level * 7 + hue) % 101), c(hue, (level * 13 + hue) % 101, level)] {
                    let hex = ColourCodec.encode(colour, format: .hsv16)
                    if try ColourCodec.decode(hex, format: .hsv16) != colour { failures.append(colour) }
                }
            }
        }
        #expect(failures.isEmpty)
    }

    @Test("every hue, saturation and value survives an rgbhsv round trip within one unit")
    func rgbhsvRoundTrip() throws {
        var failures: [HSVColour] = []
        for hue in 0...360 {
            for level in 0...100 {
                for colour in [c(hue, level, (level * 7 + hue) % 101), c(hue, (level * 13 + hue) % 101, level)] {
                    let hex = ColourCodec.encode(colour, format: .rgbhsv)
                    let back = try ColourCodec.decode(hex, format: .rgbhsv)
                    if hex.count != 14 || back.hue != colour.hue || abs(back.saturation - colour.saturation) > 1
                        || abs(back.value - colour.value) > 1
                    {
                        failures.append(colour)
                    }
                }
            }
        }
        #expect(failures.isEmpty)
    }
}
