import Testing

@testable import TuyaCore
import DeviceSimulator
import YoullTestSupport

/// Profiles can come from a user folder: hostile text must end in a `ProfileError`, never a trap or a hang.
@Suite("Profile loading of hostile YAML")
struct ProfileHostileInputTests {
    typealias F = ProfileFixture

    private func expectError(_ yaml: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: ProfileError.self, sourceLocation: sourceLocation) {
            try ProfileLoader.parse(yaml: yaml, source: "hostile.yaml")
        }
        do throws(ProfileError) {
            _ = try ProfileLoader.parse(yaml: yaml, source: "hostile.yaml")
        } catch {
            #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a document over 256 KiB is refused before parsing")
    func oversized() {
        let padding = String(repeating: "# padding padding padding padding padding padding\n", count: 6000)
        expectError(F.base + padding, reason: "profiles are limited to 262144 bytes")
    }

    @Test("an alias bomb is refused at its first anchor, with the line")
    func billionLaughs() {
        var yaml = "a: &a [x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let previous = Character(UnicodeScalar(UInt8(0x60 + level)))
            let name = Character(UnicodeScalar(UInt8(0x61 + level)))
            yaml += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
        }
        yaml += "? *j\n: boom\n"
        expectError(yaml, reason: "YAML anchors (&name) are not allowed")
        do throws(ProfileError) {
            _ = try ProfileLoader.parse(yaml: yaml, source: "bomb.yaml")
        } catch {
            #expect(error.line == 1)
        }
    }

    @Test("aliases and anchors are found after a tag, in flow lists and on their own line")
    func anchorsInEveryPosition() {
        expectError(
            F.base.replacingOccurrences(of: "name: Test diffuser", with: "name: !!str &n Test"), reason: "anchors")
        expectError(F.base.replacingOccurrences(of: "transports: [mqtt]", with: "transports: [*t]"), reason: "aliases")
        expectError(F.base.replacingOccurrences(of: "category: xxj", with: "category:\n  *c"), reason: "aliases")
        expectError(F.base.replacingOccurrences(of: "category: xxj", with: "category: !x *c"), reason: "aliases")
    }

    @Test("& and * inside running text and quotes are not taken for anchors")
    func ampersandInText() throws {
        let yaml = F.base
            .replacingOccurrences(of: "title: Refill the tank", with: "title: R&D says refill & rinse, 2*3 times")
            .replacingOccurrences(of: "name: Test diffuser", with: "name: \"*star* &co\" # note: 10*100")
        let profile = try ProfileLoader.parse(yaml: yaml, source: "text.yaml")
        #expect(profile.name == "*star* &co")
        #expect(profile.maintenance.first?.title == "R&D says refill & rinse, 2*3 times")
    }

    @Test("deeply nested flow and block collections are rejected without overflowing the stack")
    func deepNesting() {
        let flow = "id: " + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000) + "\n"
        expectError(flow, reason: "not valid YAML")
        let block = "id:\n" + String(repeating: "- ", count: 5_000) + "x\n"
        expectError(block, reason: "not valid YAML")
        // Below the parser's limit the loader refuses the shape itself.
        let shallow = "id: " + String(repeating: "[", count: 990) + String(repeating: "]", count: 990) + "\n"
        expectError(shallow, reason: "expected a string, found a list")
    }

    @Test("a long run of text with many * and & is screened in linear time", .timeLimit(.minutes(1)))
    func longRunningText() throws {
        // 200 000 characters without a blank: each '*' used to rescan the whole run before it.
        let run = String(repeating: "a*b&", count: 50_000)
        let profile = try ProfileLoader.parse(
            yaml: F.replacing("name: Test diffuser", with: "name: \(run)"), source: "long.yaml")
        #expect(profile.name.utf8.count == 200_000)
        // The tag case still needs the word before the blank: `!!str &a` is an anchor.
        expectError("id: !!str &a x\n", reason: "anchors (&name) are not allowed")
    }

    @Test("binary garbage of many shapes ends in a ProfileError", arguments: 0..<64)
    func garbage(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        let length = Int(generator.next() % 2048) + 1
        let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(throws: ProfileError.self) {
            try ProfileLoader.parse(yaml: text, source: "garbage.yaml")
        }
    }

    @Test("NUL and other control characters are rejected as unreadable text")
    func controlCharacters() {
        expectError(
            F.base.replacingOccurrences(of: "Test diffuser", with: "Test\u{0}diffuser"),
            reason: "not readable as YAML text")
        expectError(
            F.base.replacingOccurrences(of: "Test diffuser", with: "Test\u{7}diffuser"),
            reason: "not readable as YAML text")
    }

    @Test("an empty document, a bare scalar and several documents are rejected")
    func wrongDocumentShapes() {
        expectError("", reason: "the file is empty")
        expectError("# only a comment\n", reason: "the file is empty")
        expectError("just a string\n", reason: "expected a mapping, found a scalar")
        expectError(F.base + "---\nid: second\n", reason: "but found another document")
    }

    @Test("a duplicated key is reported with its line")
    func duplicateKey() {
        expectError(F.base + "name: Again\n", reason: "duplicate key 'name'")
        // A tag or quotes make the key another YAML node, but it is the same field.
        expectError(F.base + "!!str name: Again\n", reason: "duplicate key 'name'")
        expectError(F.base + "'name': Again\n", reason: "duplicate key 'name'")
        expectError(F.base + "!x name: Again\n", reason: "duplicate key 'name'")
    }

    @Test("an integer too large for Int is reported, not trapped")
    func hugeInteger() {
        F.expectRejection(
            F.replacing("{ id: 1, code: switch", with: "{ id: 99999999999999999999999999, code: switch"),
            keyPath: "data_points[0].id", reason: "is too large")
        F.expectRejection(
            F.replacing("min: 0, max: 255", with: "min: 0, max: 4294967296"),
            keyPath: "data_points[3].max", reason: "max 4294967296 is outside")
    }

    @Test("a mapping used as a mapping key is rejected")
    func complexKey() {
        expectError("? { a: 1 }\n: x\n", reason: "mapping keys must be plain words")
    }
}
