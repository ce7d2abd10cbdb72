import Testing
import TuyaCore
import TuyaWire
import DeviceSimulator
import YoullTestSupport

@Suite("CompactJSON: hostile and invalid input")
struct CompactJSONHostileTests {
    /// The malformedJSON message for `input`, or nil if it parsed or failed otherwise.
    private func rejection(_ input: [UInt8]) -> String? {
        guard case .malformedJSON(let message) = wireError({ () throws(WireError) in try CompactJSON.decode(input) })
        else { return nil }
        return message
    }

    private func rejection(_ input: String) -> String? {
        rejection(Array(input.utf8))
    }

    @Test("nesting 10,000 arrays deep is rejected at the depth limit, not by a stack overflow")
    func deepNesting() {
        let message = rejection(String(repeating: "[", count: 10_000))
        #expect(message == "nesting deeper than 32 at byte 32")
        let objects = String(repeating: #"{"a":"#, count: 40)
        #expect(rejection(objects)?.hasPrefix("nesting deeper than 32") == true)
    }

    @Test("nesting exactly at the limit is accepted")
    func depthLimit() throws {
        let input = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(try CompactJSON.decode(Array(input.utf8)) != .null)
        let over = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(rejection(over) != nil)
    }

    @Test("input over 64 KiB, such as a 1 MiB string, is refused before parsing")
    func oversized() {
        let huge = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + [UInt8(ascii: "\"")]
        let error = wireError { () throws(WireError) in try CompactJSON.decode(huge) }
        #expect(error == .lengthOutOfRange(field: "JSON input", value: huge.count, limit: 65_536))
    }

    @Test("a string just under the size limit parses")
    func largeButAllowed() throws {
        let body = [UInt8](repeating: UInt8(ascii: "z"), count: 65_000)
        let value = try CompactJSON.decode([UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")])
        #expect(value.stringValue?.utf8.count == 65_000)
    }

    @Test("lone and mismatched surrogate escapes are rejected")
    func loneSurrogates() {
        #expect(rejection(#""\ud800""#) == "lone high surrogate \\u escape at byte 1")
        #expect(rejection(#""\udc00""#) == "lone low surrogate \\u escape at byte 1")
        #expect(rejection(#""x\ud83c\u0041""#) == "high surrogate not followed by a low surrogate at byte 2")
        #expect(rejection(#""\ud83c\ud83c""#) != nil)
        #expect(rejection(#""\u12""#) != nil)
        #expect(rejection(#""\u12G4""#) != nil)
    }

    @Test("invalid UTF-8 is rejected: stray continuation, overlong, encoded surrogate, above U+10FFFF, truncated")
    func invalidUTF8() {
        let cases: [[UInt8]] = [
            [0x80], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
            [0xF0, 0x80, 0x80, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
            [0xE2, 0x82], [0xC3], [0xE2, 0x28, 0xA1],
        ]
        for bad in cases {
            let message = rejection([UInt8(ascii: "\"")] + bad + [UInt8(ascii: "\"")])
            #expect(message != nil, "bytes \(bad)")
            let escaped = rejection(Array(#""\n"#.utf8) + bad + [UInt8(ascii: "\"")])
            #expect(escaped != nil, "after an escape, bytes \(bad)")
        }
        #expect(rejection([UInt8(ascii: "\"")] + [0xC3]) == "truncated UTF-8 sequence at byte 1")
    }

    @Test("trailing commas, missing separators and bare tokens are rejected with their byte offset")
    func structure() {
        #expect(rejection("[1,]") == "unexpected ']', expected a value at byte 3")
        #expect(rejection(#"{"a":1,}"#) == "expected a string key at byte 7")
        #expect(rejection(#"{"a" 1}"#) == "expected ':' after an object key at byte 5")
        #expect(rejection(#"{"a":1 "b":2}"#) == "expected ',' or '}' in an object at byte 7")
        #expect(rejection("[1 2]") == "expected ',' or ']' in an array at byte 3")
        #expect(rejection("{1:2}") == "expected a string key at byte 1")
        #expect(rejection("") == "unexpected end of input, expected a value at byte 0")
        #expect(rejection("   ") == "unexpected end of input, expected a value at byte 3")
        #expect(rejection("[") != nil)
        #expect(rejection(#"{"a":"#) != nil)
        #expect(rejection(#""abc"#) == "unterminated string at byte 4")
        #expect(rejection("tru") != nil)
        #expect(rejection("nul") != nil)
        #expect(rejection("True") != nil)
        #expect(rejection("'a'") != nil)
    }

    @Test("trailing garbage after a complete value is rejected")
    func trailingGarbage() {
        #expect(rejection("{}x") == "unexpected 'x' after the JSON value at byte 2")
        #expect(rejection("1 2") == "unexpected '2' after the JSON value at byte 2")
        #expect(rejection([UInt8(ascii: "1"), 0]) == "unexpected byte 0x00 after the JSON value at byte 1")
    }

    @Test("NaN, Infinity, leading zeros, plus signs and bare dots are not JSON numbers")
    func badNumbers() {
        for input in [
            "NaN", "nan", "Infinity", "-Infinity", "inf", "01", "-01", "00", "+1", ".5", "1.", "-", "1e", "1e+", "0x10",
            "1.e3", "- 1",
        ] {
            #expect(rejection(input) != nil, "\(input)")
        }
        #expect(rejection("01") == "leading zero in a number at byte 1")
        #expect(rejection("1e400") == "number out of range at byte 0")
        #expect(rejection("-1e99999999999999999999") == "number out of range at byte 0")
    }

    @Test("raw control characters inside strings and unknown escapes are rejected")
    func controlCharacters() {
        #expect(rejection("\"a\nb\"") == "unescaped control character byte 0x0a in a string at byte 2")
        #expect(rejection(#""\x41""#) == "invalid escape \\x at byte 1")
        #expect(rejection(#""\'""#) != nil)
    }

    @Test("a duplicate object key is rejected rather than silently picking one copy")
    func duplicateKeys() {
        #expect(rejection(#"{"1":true,"1":false}"#) == "duplicate object key at byte 10")
        #expect(rejection(#"{"a":{"b":1,"b":1}}"#) != nil)
    }

    @Test("thousands of seeded random and mutated inputs never trap")
    func randomInputs() {
        var generator = SeededGenerator(seed: 0x15_0A)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 tfnrulsa\u"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        let seedDocument = Array(
            #"{"protocol":4,"t":1700000000,"data":{"dps":{"1":true,"2":-12.5e3,"3":"\u00e9\ud83c\udf3f"}}}"#.utf8)
        var parsed = 0
        for round in 0..<4_000 {
            var input: [UInt8]
            if round % 2 == 0 {
                let length = Int.random(in: 0..<64, using: &generator)
                input = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            } else {
                input = seedDocument
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<input.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: input[position] = UInt8.random(in: .min ... .max, using: &generator)
                    case 1: input.remove(at: position)
                    default: input.insert(alphabet.randomElement(using: &generator)!, at: position)
                    }
                    if input.isEmpty { break }
                }
            }
            if let value = try? CompactJSON.decode(input) {
                parsed += 1
                // Whatever parses must survive a write/read round trip unchanged.
                #expect((try? CompactJSON.decode(CompactJSON.encode(value))) == value)
            }
        }
        #expect(parsed > 0)
    }
}
