import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@Suite("Reading the dps of a LAN body")
struct LANDataPointsTests {
    /// What `LANDataPoints.dps` returned when it read the whole body into values first.
    static func wholeBodyReading(_ json: [UInt8]) -> Result<[String: JSONValue]?, WireError> {
        guard !json.isEmpty else { return .success(nil) }
        func members(_ value: JSONValue, _ field: String) throws(WireError) -> [String: JSONValue] {
            guard case .object(let members) = value else { throw .invalidField(field: field, reason: "not an object") }
            return members
        }
        do throws(WireError) {
            guard case .object(let root) = try CompactJSON.decode(json) else {
                throw .malformedJSON("the LAN body is not a JSON object")
            }
            if let dps = root["dps"] { return .success(try members(dps, "dps")) }
            if case .object(let data)? = root["data"], let dps = data["dps"] {
                return .success(try members(dps, "data.dps"))
            }
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }

    static func reading(_ json: [UInt8]) -> Result<[String: JSONValue]?, WireError> {
        do throws(WireError) {
            return .success(try LANDataPoints.dps(in: json))
        } catch {
            return .failure(error)
        }
    }

    @Test(
        "reading only the dps accepts, rejects and reports each body exactly as reading the whole body does",
        arguments: [
            #"{"devId":"bf0123456789abcdef01","dps":{"20":true,"22":500},"t":1732200000}"#,
            #"{"protocol":4,"t":1,"data":{"dps":{"2":5}}}"#,
            #"{"protocol":4,"data":{"cid":"x","dps":{"2":5}},"dps":{"1":false}}"#,
            #"{"data":[1,{"a":[true,null,-1.5e3]}],"t":"x"}"#,
            #" { "d\u0070s" : { "1" : "caf\u00e9" } } "#,
            #"{"data":{"dps":7}}"#, #"{"dps":[1]}"#, #"[{"dps":{}}]"#, "json obj data unvalid", "{}", #"{"t":1}"#,
            // Duplicate keys anywhere, also inside members that are skipped, and escaped.
            #"{"t":{"a":1,"a":2},"dps":{"1":true}}"#, #"{"data":{"dps":{},"dps":{}}}"#, #"{"dps":{},"d\u0070s":{}}"#,
            #"{"x":{"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"#
                + #""k13":0,"k14":0,"k15":0,"k16":0,"k17":0,"k18":0,"k3":1}}"#,
            // Keys compared as bytes while they are plain ASCII: a repeat found after the ninth key,
            // keys that share a prefix, and non-ASCII keys that Swift holds equal (é, e + U+0301).
            #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"b":9,"dps":{}}"#,
            #"{"ab":1,"ac":2,"a":3,"ab ":4,"dps":{"1":true}}"#, "{\"\u{E9}\":1,\"e\u{301}\":2,\"dps\":{}}",
            // The Kelvin sign equals "K" as a Swift string, escaped or not, in either order; a
            // plain key repeated by its escape after the switch to strings; empty and DEL keys;
            // a repeat against a later syntax error, at the top level and one level down.
            #"{"K":1,"\u212A":2,"dps":{}}"#, #"{"\u212A":1,"K":2,"dps":{}}"#, "{\"K\":1,\"\u{212A}\":2,\"dps\":{}}",
            #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"\u0061":9,"dps":{}}"#, #"{"":1,"":2,"dps":{}}"#,
            "{\"\u{7F}\":1,\"\\u007f\":2,\"dps\":{}}", #"{"a":1,"a":2,"t":tru}"#, #"{"t":{"a":1,"a":2},"u":tru}"#,
            #"{"a":1,"a":{"b":1,"b":2}}"#,
            // Broken JSON in a skipped member, in the dps, and after the body.
            #"{"t":"\ud800","dps":{}}"#, #"{"t":01,"dps":{}}"#, #"{"t":[1,],"dps":{}}"#, #"{"t":tru}"#,
            #"{"dps":{"1":true}"#, #"{"dps":{"1":true}} x"#, #"{"t" 1}"#, #"{"t":1,}"#, #"{,}"#, #"{"t":"#, "{",
            String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
            #"{"t":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ])
    func sameAsWholeBody(_ body: String) {
        let json = Array(body.utf8)
        #expect(Self.reading(json) == Self.wholeBodyReading(json), "\(body)")
    }

    @Test("invalid UTF-8 in a skipped string is rejected as in the whole body")
    func invalidUTF8() {
        let json = Array(#"{"t":""#.utf8) + [0xC0, 0xAF] + Array(#"","dps":{}}"#.utf8)
        #expect(Self.reading(json) == Self.wholeBodyReading(json))
        guard case .failure = Self.reading(json) else {
            Issue.record("an overlong UTF-8 sequence was accepted")
            return
        }
    }
}
