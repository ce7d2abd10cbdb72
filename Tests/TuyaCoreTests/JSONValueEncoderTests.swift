import Foundation
import Testing

@testable import TuyaCore

/// `Codable` payloads into `JSONValue`: the value a hand-built payload used to be.
@Suite("JSONValueEncoder")
struct JSONValueEncoderTests {
    struct Payload: Codable {
        var name: String
        var count: Int
        var seconds: Double
        var ratio: Float
        var flag: Bool
        var missing: String?
        @NullWhenAbsent var documentedNull: Int?
        var nested: Nested
        var list: [Int64]

        enum CodingKeys: String, CodingKey {
            case name, count, seconds, ratio, flag, missing, nested, list
            case documentedNull = "documented_null"
        }
    }

    struct Nested: Codable {
        var values: [String: Double]
        var empty: [String]
    }

    @Test("integers stay integers, floating-point numbers stay doubles even when whole, keys as coded")
    func exactNumbers() throws {
        let value = try JSONValueEncoder().encode(
            Payload(
                name: "lamp", count: 3, seconds: 4.0, ratio: 0.5, flag: true, missing: nil, documentedNull: nil,
                nested: Nested(values: ["a": 1.5], empty: []), list: [Int64.max, -1]))
        #expect(
            value
                == .object([
                    "name": .string("lamp"), "count": .integer(3), "seconds": .double(4.0), "ratio": .double(0.5),
                    "flag": .bool(true), "documented_null": .null,
                    "nested": .object(["values": .object(["a": .double(1.5)]), "empty": .array([])]),
                    "list": .array([.integer(Int64.max), .integer(-1)]),
                ]))
    }

    @Test("a nil optional is left out; NullWhenAbsent writes null, or the value when there is one")
    func nils() throws {
        struct Pair: Codable {
            var plain: Int?
            @NullWhenAbsent var nullable: Int?
        }
        #expect(try JSONValueEncoder().encode(Pair(plain: nil, nullable: nil)) == .object(["nullable": .null]))
        #expect(
            try JSONValueEncoder().encode(Pair(plain: 1, nullable: 2))
                == .object(["plain": .integer(1), "nullable": .integer(2)]))
    }

    @Test(
        "a JSONValue encodes as itself",
        arguments: [
            JSONValue.null, .bool(false), .integer(-7), .double(2.5), .string("é\"\\"), .array([.integer(1), .null]),
            .object(["20": .integer(1000), "nested": .object(["x": .array([])])]),
        ])
    func jsonValueIsItself(value: JSONValue) throws {
        #expect(try JSONValueEncoder().encode(value) == value)
    }

    @Test("JSON held in a payload (a state, data points, a list of them) is written as it is")
    func jsonInsidePayloads() throws {
        struct Report: Encodable {
            var state: [String: JSONValue]
            var value: JSONValue
            var history: [JSONValue]
            var optional: JSONValue?
        }
        let state: [String: JSONValue] = ["brightness": .integer(500), "colour": .object(["h": .double(30.5)])]
        let report = Report(
            state: state, value: .array([.null, .bool(true)]), history: [.string("on"), .null], optional: .integer(1))
        #expect(
            try JSONValueEncoder().encode(report)
                == .object([
                    "state": .object(state), "value": .array([.null, .bool(true)]),
                    "history": .array([.string("on"), .null]), "optional": .integer(1),
                ]))
    }

    @Test("an unsigned number beyond a JSON integer is refused, naming where it was")
    func overflow() {
        struct Big: Encodable { var counter: UInt64 }
        #expect {
            _ = try JSONValueEncoder().encode(Big(counter: .max))
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["counter"]
        }
    }

    @Test("NullWhenAbsent reads back what it wrote")
    func nullableRoundTrip() throws {
        struct Holder: Codable, Equatable { @NullWhenAbsent var value: String? }
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Holder.self, from: Data(#"{"value":null}"#.utf8)) == Holder(value: nil))
        #expect(try decoder.decode(Holder.self, from: Data(#"{"value":"x"}"#.utf8)) == Holder(value: "x"))
    }
}
