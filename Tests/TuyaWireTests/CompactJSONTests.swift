import Testing
import TuyaCore
import TuyaWire

@Suite("CompactJSON: writing and reading valid JSON")
struct CompactJSONTests {
    private func text(_ value: JSONValue) -> String {
        String(decoding: CompactJSON.encode(value), as: UTF8.self)
    }

    private func parse(_ text: String) throws -> JSONValue {
        try CompactJSON.decode(Array(text.utf8))
    }

    @Test("output has no whitespace and DP-id keys come in numeric order")
    func compactAndOrdered() {
        let value: JSONValue = .object([
            "data": .object([
                "dps": .object(["20": .bool(true), "3": .integer(255), "101": .string("a b"), "1": .null])
            ]),
            "protocol": .integer(5),
            "t": .integer(1_700_000_000),
        ])
        #expect(
            text(value) == #"{"data":{"dps":{"1":null,"3":255,"20":true,"101":"a b"}},"protocol":5,"t":1700000000}"#)
    }

    @Test("the same object always encodes to the same bytes")
    func deterministic() {
        var members: [String: JSONValue] = [:]
        for index in 0..<40 { members["k\(index)"] = .integer(Int64(index)) }
        members["7"] = .bool(false)
        let first = CompactJSON.encode(.object(members))
        var reinserted: [String: JSONValue] = [:]
        for (key, value) in members.reversed() { reinserted[key] = value }
        #expect(CompactJSON.encode(.object(reinserted)) == first)
        #expect(first.starts(with: Array(#"{"7":false,"k0":0,"k1":1,"k10":10"#.utf8)))
    }

    @Test("empty containers, literals and nesting round trip")
    func roundTrips() throws {
        let values: [JSONValue] = [
            .null, .bool(true), .bool(false), .integer(0), .string(""), .array([]), .object([:]),
            .array([.array([.object(["a": .array([.null, .integer(-1), .double(0.5)])])])]),
            .object(["dps": .object(["1": .bool(true), "2": .string("colour"), "5": .string("000003e803e8")])]),
        ]
        for value in values {
            #expect(try CompactJSON.decode(CompactJSON.encode(value)) == value)
        }
    }

    @Test("strings escape quotes, backslashes and control characters and read back")
    func escapes() throws {
        let value = JSONValue.string("q\"b\\s/\u{08}\u{0C}\n\r\t\u{01}\u{1F}")
        #expect(text(value) == #""q\"b\\s/\b\f\n\r\t\u0001\u001f""#)
        #expect(try parse(text(value)) == value)
        #expect(try parse(#""\/\u0041\u00e9""#) == .string("/Aé"))
    }

    @Test("non-ASCII text is written as raw UTF-8 and \\u surrogate pairs decode to one scalar")
    func unicode() throws {
        let value = JSONValue.string("Düfter 香薰 🌿")
        #expect(text(value) == "\"Düfter 香薰 🌿\"")
        #expect(try parse(text(value)) == value)
        #expect(try parse(#""\ud83c\udf3f""#) == .string("🌿"))
        #expect(try parse(#""\uD83C\uDF3F x""#) == .string("🌿 x"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test("integers stay exact at the Int64 extremes")
    func integerExtremes() throws {
        for number in [Int64.max, Int64.min, 0, -1, 1, 4_294_967_295, -2_147_483_648] {
            #expect(text(.integer(number)) == String(number))
            #expect(try parse(String(number)) == .integer(number))
        }
        #expect(try parse("-0") == .integer(0))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("-9223372036854775809") == .double(-0x1p63))
        #expect(try parse("123456789012345678901234") == .double(1.2345678901234568e23))
    }

    @Test("fractions and exponents read as Double, correctly rounded")
    func doubles() throws {
        #expect(try parse("1e3") == .double(1000))
        #expect(try parse("1E+3") == .double(1000))
        #expect(try parse("0.5") == .double(0.5))
        #expect(try parse("-0.25e-2") == .double(-0.0025))
        #expect(try parse("0.1") == .double(0.1))
        #expect(try parse("3.141592653589793") == .double(3.141592653589793))
        #expect(try parse("2.2250738585072014e-308") == .double(2.2250738585072014e-308))
        #expect(try parse("1.7976931348623157e308") == .double(1.7976931348623157e308))
        #expect(try parse("5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try parse("1e-400") == .double(0))
        #expect(try parse("0.000000000000000000000000000001") == .double(1e-30))
    }

    @Test("doubles write as the shortest text that reads back to the same value")
    func doubleText() throws {
        for number in [0.5, -0.25, 1000.0, 1e-5, 1e20, 1.7976931348623157e308, .leastNonzeroMagnitude, 0.1 + 0.2] {
            let encoded = CompactJSON.encode(.double(number))
            #expect(try CompactJSON.decode(encoded) == .double(number))
        }
        #expect(text(.double(0.5)) == "0.5")
        #expect(text(.double(.nan)) == "null")
        #expect(text(.double(.infinity)) == "null")
    }

    @Test("whitespace around tokens is accepted when reading")
    func whitespace() throws {
        #expect(try parse(" \t\n\r{ \"a\" : [ 1 , 2 ] } \n") == .object(["a": .array([.integer(1), .integer(2)])]))
    }

    @Test("decoding from raw memory gives the same value as from an array")
    func rawBuffer() throws {
        let input = Array(#"{"dps":{"1":true}}"#.utf8)
        let fromBuffer = try input.withUnsafeBytes { buffer throws(WireError) in try CompactJSON.decode(buffer) }
        #expect(fromBuffer == (try CompactJSON.decode(input)))
    }

    @Test("appending into a reused buffer keeps what was there")
    func appendInto() {
        var out = Array("x".utf8)
        CompactJSON.encode(.array([.integer(1)]), into: &out)
        #expect(out == Array("x[1]".utf8))
    }
}
