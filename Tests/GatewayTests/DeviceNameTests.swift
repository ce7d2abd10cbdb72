import Gateway
import Testing

/// Friendly names come from anyone who can publish a request: limits in bytes and
/// characters, nothing hidden, and a warning for look-alikes.
@Suite("Device names")
struct DeviceNameTests {
    func reason(_ text: String) -> String? {
        do {
            _ = try DeviceName(field: "to", text: text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a name of 64 characters but thousands of bytes is refused, naming the byte limit")
    func byteLimit() {
        // 64 grapheme clusters, each one base letter with 60 combining marks.
        let heavy = String(repeating: "a" + String(repeating: "\u{0301}", count: 60), count: 64)
        #expect(heavy.count == 64)
        #expect(reason(heavy)?.contains("bytes of UTF-8; names are limited to 128") == true)
        #expect(reason(String(repeating: "é", count: 64)) == nil, "64 two-byte letters are fine")
        #expect(reason(String(repeating: "a", count: 65))?.contains("1 to 64 characters") == true)
    }

    @Test(
        "invisible, separator and bidi-override characters are refused with their code point",
        arguments: [
            ("lamp\u{FEFF}", "an invisible character (U+FEFF)"), ("lamp\u{2028}x", "an invisible character (U+2028)"),
            ("lamp\u{202E}pmal", "a bidi override (U+202E)"), ("la\u{200B}mp", "an invisible character (U+200B)"),
            ("lamp\u{07}", "a control character (U+0007)"),
        ])
    func hiddenCharacters(_ text: String, _ expected: String) {
        #expect(reason(text)?.contains(expected) == true, "\(reason(text) ?? "accepted")")
    }

    @Test("ordinary names in any script are accepted")
    func ordinaryNames() {
        for name in ["living room", "Wohnzimmer Lampe", "спальня", "寝室のランプ", "lamp (2)", "café"] {
            #expect(reason(name) == nil, "\(name)")
        }
    }

    @Test("a mixed-script name that looks like another device's gets a warning; honest names do not")
    func lookalikes() throws {
        let spoof = try DeviceName(text: "bridgе lamp")  // Cyrillic е
        #expect(spoof.mixesScripts)
        #expect(spoof.lookalikeWarning(of: "bridge lamp")?.contains("looks like the device \"bridge lamp\"") == true)
        #expect(try DeviceName(text: "bridge lamp 2").lookalikeWarning(of: "bridge lamp") == nil)
        #expect(try DeviceName(text: "спальня").lookalikeWarning(of: "cnanbhr") == nil, "one script only")
    }
}
