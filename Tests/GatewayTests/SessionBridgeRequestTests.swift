import Gateway
import SessionEngine
import Testing
import TuyaCore

/// Pure parsing of the `session/*` verbs from untrusted payloads.
@Suite("Bridge requests: session verbs")
struct SessionBridgeRequestTests {
    static func parse(_ verb: String, _ json: String) throws(BridgePayloadError) -> BridgeRequest {
        try BridgeRequest.parse(verb: verb, payload: Array(json.utf8))
    }

    @Test("session/start reads minutes, warm-up, interval, devices and preset")
    func startMinutes() throws {
        let request = try Self.parse(
            "session/start",
            #"{"preset":"calm","minutes":20,"warmup_seconds":30,"interval_minutes":5,"devices":["lamp","aroma"]}"#)
        let expected = SessionStartRequest(
            preset: "calm",
            configuration: SessionConfiguration(
                warmUp: .seconds(30),
                length: .stages([SessionStage(name: "meditation", length: .seconds(1200), bellInterval: .seconds(300))])
            ),
            devices: ["lamp", "aroma"])
        #expect(request == .session(.start(expected)))
    }

    @Test("stages, until and open_ended each define the length; fractions of minutes are kept to the millisecond")
    func lengths() throws {
        let staged = try Self.parse(
            "session/start", #"{"stages":[{"name":"settle","minutes":0.5,"interval":0.25},{"minutes":2}]}"#)
        #expect(
            staged
                == .session(
                    .start(
                        SessionStartRequest(
                            configuration: SessionConfiguration(
                                length: .stages([
                                    SessionStage(name: "settle", length: .seconds(30), bellInterval: .seconds(15)),
                                    SessionStage(name: "stage 2", length: .seconds(120)),
                                ]))))))
        let until = try Self.parse("session/start", #"{"until":"07:30","interval_minutes":10}"#)
        #expect(
            until
                == .session(
                    .start(
                        SessionStartRequest(
                            configuration: SessionConfiguration(
                                length: .until(try TimeOfDay(parsing: "07:30"), bellInterval: .seconds(600)))))))
        let tomorrow = try Self.parse("session/start", #"{"until":"Tomorrow  07:30"}"#)
        #expect(
            tomorrow
                == .session(
                    .start(
                        SessionStartRequest(
                            configuration: SessionConfiguration(
                                length: .until(try TimeOfDay(parsing: "07:30"), bellInterval: nil)),
                            untilTomorrow: true))))
        let open = try Self.parse("session/start", #"{"open_ended":true}"#)
        #expect(
            open
                == .session(
                    .start(
                        SessionStartRequest(configuration: SessionConfiguration(length: .openEnded(bellInterval: nil))))
                ))
    }

    @Test(
        "each refused field is named",
        arguments: [
            (#"{}"#, "minutes"),
            (#"{"minutes":10,"until":"07:00"}"#, "stages"),
            (#"{"minutes":"ten"}"#, "minutes"),
            (#"{"minutes":-1}"#, "minutes"),
            (#"{"minutes":0}"#, "minutes"),
            (#"{"minutes":0.0001}"#, "minutes"),
            (#"{"minutes":5,"interval_minutes":0.001}"#, "interval_minutes"),
            (#"{"minutes":5,"devices":[]}"#, "devices"),
            (#"{"minutes":1e300}"#, "minutes"),
            (#"{"minutes":5,"warmup_seconds":true}"#, "warmup_seconds"),
            (#"{"until":"25:00"}"#, "until"),
            (#"{"until":"soon 07:00"}"#, "until"),
            (#"{"until":"tomorrow"}"#, "until"),
            (#"{"stages":[]}"#, "stages"),
            (#"{"stages":[{"name":"a"}]}"#, "stages[0].minutes"),
            (#"{"stages":[{"minutes":1},{"minutes":1,"bell":2}]}"#, "stages[1].bell"),
            (#"{"stages":[{"minutes":1}],"interval_minutes":1}"#, "interval_minutes"),
            (#"{"minutes":5,"devices":"lamp"}"#, "devices"),
            (#"{"minutes":5,"devices":["lamp",7]}"#, "devices[1]"),
            (#"{"minutes":5,"preset":""}"#, "preset"),
            (#"{"minutes":5,"colour":"red"}"#, "colour"),
        ])
    func refused(json: String, field: String) {
        do {
            _ = try Self.parse("session/start", json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.field == field, "\(json): \(error)")
        }
    }

    @Test("the other verbs and their options")
    func otherVerbs() throws {
        #expect(try Self.parse("session/pause", "") == .session(.pause))
        #expect(try Self.parse("session/resume", "{}") == .session(.resume))
        #expect(try Self.parse("session/stop", "") == .session(.stop(immediately: false)))
        #expect(try Self.parse("session/stop", #"{"immediately":true}"#) == .session(.stop(immediately: true)))
        #expect(try Self.parse("session/status", "") == .session(.status))
        #expect(try Self.parse("session/history", #"{"limit":5}"#) == .session(.history(limit: 5)))
        #expect(throws: BridgePayloadError.self) { try Self.parse("session/history", #"{"limit":0}"#) }
        #expect(BridgeRequest.verbs.contains("session/start"))
    }
}
