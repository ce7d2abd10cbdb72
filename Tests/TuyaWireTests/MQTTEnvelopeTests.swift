import Testing
import TuyaCore
import TuyaWire

@Suite("Tuya MQTT JSON envelope")
struct MQTTEnvelopeTests {
    private func decode(_ text: String) throws(WireError) -> (envelope: TuyaEnvelope, timestamp: Int64) {
        try TuyaEnvelope.decode(Array(text.utf8))
    }

    private func error(_ text: String) -> WireError? {
        wireError { () throws(WireError) in try decode(text) }
    }

    @Test("envelopes encode compactly in TCK's key order: protocol, t, data")
    func encodeOrder() {
        let command = TuyaEnvelope.command(dps: ["1": .bool(true), "3": .integer(1000)])
        #expect(
            String(decoding: command.encode(timestamp: 1_700_000_000), as: UTF8.self)
                == #"{"protocol":5,"t":1700000000,"data":{"dps":{"1":true,"3":1000}}}"#)
        #expect(
            String(decoding: TuyaEnvelope.query(dpIDs: nil).encode(timestamp: 5), as: UTF8.self)
                == #"{"protocol":31,"t":5,"data":{}}"#)
        #expect(
            String(decoding: TuyaEnvelope.query(dpIDs: [1, 20]).encode(timestamp: 5), as: UTF8.self)
                == #"{"protocol":31,"t":5,"data":{"dpId":[1,20]}}"#)
        let report = TuyaEnvelope.report(devId: "d\"1", dps: ["1": .bool(false)], t: 9)
        #expect(
            String(decoding: report.encode(timestamp: 8), as: UTF8.self)
                == #"{"protocol":4,"t":8,"data":{"devId":"d\"1","dps":{"1":false},"t":9}}"#)
        let other = TuyaEnvelope.other(protocol: 15, data: .object(["gwId": .string("x")]))
        #expect(
            String(decoding: other.encode(timestamp: 1), as: UTF8.self) == #"{"protocol":15,"t":1,"data":{"gwId":"x"}}"#
        )
    }

    @Test("protocol numbers follow TUYA.md §3.3: 4 report, 5 command, 31 query")
    func protocolNumbers() {
        #expect(TuyaEnvelope.report(devId: nil, dps: [:], t: nil).protocolNumber == 4)
        #expect(TuyaEnvelope.command(dps: [:]).protocolNumber == 5)
        #expect(TuyaEnvelope.query(dpIDs: nil).protocolNumber == 31)
        #expect(TuyaEnvelope.other(protocol: 26, data: .null).protocolNumber == 26)
    }

    @Test("decoding reads the typed message and the timestamp, whatever the key order")
    func decodeTyped() throws {
        let report = try decode(#"{"data":{"dps":{"1":true},"devId":"abc","t":12},"t":11,"protocol":4}"#)
        #expect(report.envelope == .report(devId: "abc", dps: ["1": .bool(true)], t: 12))
        #expect(report.timestamp == 11)
        #expect(
            try decode(#"{"protocol":5,"t":1,"data":{"dps":{"2":"x"},"ctype":0}}"#).envelope
                == .command(dps: ["2": .string("x")]))
        #expect(try decode(#"{"protocol":31,"t":1,"data":{"dpId":[1,2]}}"#).envelope == .query(dpIDs: [1, 2]))
        #expect(try decode(#"{"protocol":31,"t":1,"data":{}}"#).envelope == .query(dpIDs: nil))
        #expect(
            try decode(#"{"protocol":8,"t":1,"data":[1]}"#).envelope == .other(protocol: 8, data: .array([.integer(1)]))
        )
    }

    @Test("a missing protocol, t or data is named in the error")
    func missingFields() {
        #expect(error(#"{"t":1,"data":{}}"#) == .missingField("protocol"))
        #expect(error(#"{"protocol":5,"data":{}}"#) == .missingField("t"))
        #expect(error(#"{"protocol":5,"t":1}"#) == .missingField("data"))
        #expect(error(#"{"protocol":5,"t":1,"data":{}}"#) == .missingField("data.dps"))
        #expect(error(#"{"protocol":4,"t":1,"data":{"devId":"x"}}"#) == .missingField("data.dps"))
    }

    @Test("fields of the wrong type are named in the error")
    func invalidFields() {
        #expect(
            error(#"{"protocol":"5","t":1,"data":{}}"#) == .invalidField(field: "protocol", reason: "not an integer"))
        #expect(
            error(#"{"protocol":5.5,"t":1,"data":{}}"#) == .invalidField(field: "protocol", reason: "not an integer"))
        #expect(
            error(#"{"protocol":5,"t":"1","data":{}}"#) == .invalidField(field: "t", reason: "not an integer timestamp")
        )
        #expect(error(#"{"protocol":5,"t":1,"data":[]}"#) == .invalidField(field: "data", reason: "not an object"))
        #expect(
            error(#"{"protocol":5,"t":1,"data":{"dps":[]}}"#)
                == .invalidField(field: "data.dps", reason: "not an object"))
        #expect(
            error(#"{"protocol":4,"t":1,"data":{"devId":1,"dps":{}}}"#)
                == .invalidField(field: "data.devId", reason: "not a string"))
        #expect(
            error(#"{"protocol":4,"t":1,"data":{"dps":{},"t":"x"}}"#)
                == .invalidField(field: "data.t", reason: "not an integer timestamp"))
        #expect(
            error(#"{"protocol":31,"t":1,"data":{"dpId":1}}"#)
                == .invalidField(field: "data.dpId", reason: "not an array"))
        #expect(
            error(#"{"protocol":31,"t":1,"data":{"dpId":[1,"2"]}}"#)
                == .invalidField(field: "data.dpId", reason: "holds a value that is not a DP id"))
        #expect(
            error(#"{"protocol":31,"t":1,"data":{"dpId":[-1]}}"#)
                == .invalidField(field: "data.dpId", reason: "holds a value that is not a DP id"))
    }

    @Test("a body that is not a JSON object is malformed JSON")
    func notAnObject() {
        #expect(error("[1]") == .malformedJSON("the envelope is not a JSON object at byte 0"))
        guard case .malformedJSON = error(#"{"protocol":5,"#) else {
            Issue.record("expected malformedJSON")
            return
        }
    }
}
