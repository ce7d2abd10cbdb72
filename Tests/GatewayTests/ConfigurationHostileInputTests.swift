import Testing

@testable import Gateway

/// The file may be written by anyone with access to /etc: hostile text ends in an error, never a trap.
@Suite("Configuration loading of hostile YAML")
struct ConfigurationHostileInputTests {
    private func expectRefused(_ yaml: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = ConfigFixture.error(yaml)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test("a file over 64 KiB is refused before parsing")
    func oversized() {
        expectRefused(String(repeating: "# padding padding padding padding\n", count: 2000), reason: "limited to 65536")
    }

    @Test("anchors and aliases are refused with their line")
    func aliases() {
        expectRefused("mqtt: &m\n  url: mqtt://h\n", reason: "anchors (&name) are not allowed")
        let error = ConfigFixture.error("base_topic: youll\nstate_directory: *s\n")
        #expect(error?.line == 2 && error?.reason.contains("aliases") == true)
    }

    @Test("deep nesting is refused by the parser without overflowing the stack")
    func deepNesting() {
        expectRefused(
            "mqtt: " + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000),
            reason: "not valid YAML")
        expectRefused("mqtt:\n" + String(repeating: "- ", count: 5_000) + "x\n", reason: "not valid YAML")
    }

    @Test("garbage, control characters, duplicates and several documents end in an error")
    func garbage() {
        expectRefused("base_topic: a\u{0}b\n", reason: "not readable as YAML text")
        expectRefused("base_topic: a\nbase_topic: b\n", reason: "duplicate key 'base_topic'")
        // A tag or quotes make the key another YAML node, but it is the same setting.
        expectRefused("base_topic: a\n!!str base_topic: b\n", reason: "duplicate key 'base_topic'")
        expectRefused("mqtt:\n  url: mqtt://a\n  !x url: mqtt://b\n", reason: "duplicate key 'url'")
        expectRefused("mqtt:\n  url: mqtt://a\n  \"url\": mqtt://b\n", reason: "duplicate key 'url'")
        expectRefused("base_topic: a\n---\nbase_topic: b\n", reason: "but found another document")
        expectRefused("just text\n", reason: "expected a mapping")
        expectRefused("mqtt: {url: [\n", reason: "not valid YAML")
        expectRefused("ble:\n  max_connections: 99999999999999999999999\n", reason: "too large")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<32 {
            let bytes = (0..<512).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            #expect(ConfigFixture.error(String(decoding: bytes, as: UTF8.self)) != nil)
        }
    }
}
