import YoullTestSupport
import Testing
import TuyaCore
import TuyaWire

@Suite("LAN JSON bodies per version")
struct LANBodyTests {
    @Test("CONTROL up to 3.3 names the device and puts dps at the top level with t as a string")
    func control33() throws {
        let request = LANRequest.control(
            version: .v3_3, devId: "bf01", dps: ["1": .bool(true)], timestamp: 1_700_000_000)
        #expect(request.command == .control)
        #expect(
            try CompactJSON.decode(request.json)
                == .object([
                    "devId": .string("bf01"), "uid": .string("bf01"), "t": .string("1700000000"),
                    "dps": .object(["1": .bool(true)]),
                ]))
        #expect(!request.json.contains(UInt8(ascii: " ")))
    }

    @Test("CONTROL_NEW from 3.4 is protocol 5 with dps under data and t as a number")
    func control34() throws {
        let request = LANRequest.control(version: .v3_5, devId: "bf01", dps: ["20": .bool(false)], timestamp: 5)
        #expect(request.command == .controlNew)
        #expect(request.json == ascii(#"{"data":{"dps":{"20":false}},"protocol":5,"t":5}"#))
    }

    @Test("queries: DP_QUERY with ids up to 3.3, DP_QUERY_NEW with {} from 3.4; heartbeat and device22 forms")
    func queries() throws {
        let old = LANRequest.query(version: .v3_3, devId: "bf01", timestamp: 9)
        #expect(old.command == .dpQuery)
        #expect(
            try CompactJSON.decode(old.json)
                == .object([
                    "gwId": .string("bf01"), "devId": .string("bf01"), "uid": .string("bf01"), "t": .string("9"),
                ]))
        #expect(
            LANRequest.query(version: .v3_4, devId: "bf01", timestamp: 9)
                == LANRequest(command: .dpQueryNew, json: ascii("{}")))
        #expect(LANRequest.heartbeat(devId: "bf01").json == ascii(#"{"devId":"bf01","gwId":"bf01"}"#))
        let device22 = LANRequest.device22Query(devId: "bf01", dpIDs: [1, 20], timestamp: 3)
        #expect(device22.command == .controlNew)
        #expect(try LANDataPoints.dps(in: device22.json) == ["1": .null, "20": .null])
        #expect(LANRequest.updateDPs([18, 19]).json == ascii(#"{"dpId":[18,19]}"#))
    }

    @Test("dps are read from the top level (3.3) and from data.dps (3.4/3.5); bodies without dps give nil")
    func readDPs() throws {
        #expect(try LANDataPoints.dps(in: ascii(#"{"devId":"x","dps":{"1":true}}"#)) == ["1": .bool(true)])
        #expect(try LANDataPoints.dps(in: ascii(#"{"protocol":4,"t":1,"data":{"dps":{"2":5}}}"#)) == ["2": .integer(5)])
        #expect(try LANDataPoints.dps(in: []) == nil)
        #expect(try LANDataPoints.dps(in: ascii(#"{"t":1}"#)) == nil)
        #expect(throws: WireError.self) { try LANDataPoints.dps(in: ascii(#"{"dps":[1]}"#)) }
        #expect(throws: WireError.self) { try LANDataPoints.dps(in: ascii("json obj data unvalid")) }
        #expect(LANDataPoints.asksForDevice22Query(ascii("json obj data unvalid")))
        #expect(!LANDataPoints.asksForDevice22Query(ascii("{}")))
    }

    @Test("device replies: 3.3 top-level dps with devId; 3.4/3.5 protocol 4 with data.dps")
    func deviceReplies() throws {
        #expect(
            LANDeviceReply.status(version: .v3_3, devId: "d", dps: ["1": .bool(true)], timestamp: 7)
                == ascii(#"{"devId":"d","dps":{"1":true},"t":7}"#))
        #expect(
            LANDeviceReply.dps(version: .v3_4, devId: "d", dps: ["1": .bool(true)], timestamp: 7)
                == ascii(#"{"data":{"dps":{"1":true}},"protocol":4,"t":7}"#))
    }
}
