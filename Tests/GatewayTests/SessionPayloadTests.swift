import Foundation
import Gateway
import SessionEngine
import Testing
import TuyaCore
import TuyaWire

/// The session payloads' bytes on the bridge, written out by hand: the `Codable` types
/// must publish exactly what the API documents (times with a tenth, nulls where nothing is
/// left, devices by name, sorted keys).
@Suite("session payloads on the bridge")
struct SessionPayloadTests {
    static let lamp = DeviceID("bf0000000000000000lamp")!

    static func text(_ value: JSONValue) -> String { String(decoding: CompactJSON.encode(value), as: UTF8.self) }

    @Test("an active session's status: phase, stage, times to a tenth, devices by friendly name")
    func activeStatus() {
        let status = SessionStatus(
            id: SessionID("s-1")!, presetName: "focus", state: .running, phase: .stage(index: 0, name: "sit"),
            elapsed: .milliseconds(61_260), remaining: .seconds(120), nextBell: nil, firedCues: 3, skippedCues: 1,
            totalCues: 9, devices: [Self.lamp: DeviceOutcome(sent: 2, confirmed: 1, skipped: 1)])
        #expect(
            Self.text(SessionStatusPayload(status, names: [Self.lamp: "lamp"]).json)
                == #"{"cues_fired":3,"cues_skipped":1,"cues_total":9,"#
                + #""devices":[{"confirmed":1,"friendly_name":"lamp","id":"bf0000000000000000lamp","sent":2,"skipped":1}],"#
                + #""elapsed_seconds":61.3,"id":"s-1","next_bell_seconds":null,"phase":"stage","preset":"focus","#
                + #""remaining_seconds":120.0,"stage":"sit","stage_index":0,"state":"running"}"#)
    }

    @Test("no session is {\"state\":\"idle\"}")
    func idle() {
        #expect(Self.text(SessionStatusPayload.idle.json) == #"{"state":"idle"}"#)
        #expect(SessionStatusPayload(nil, names: [:]) == .idle)
    }

    @Test("a cue event names its device, with planned and actual seconds and the lateness in milliseconds")
    func cueEvent() throws {
        let record = CueRecord(
            cueIndex: 4, kind: .bell(stage: 0, ring: 1), deviceID: Self.lamp, planned: .seconds(40),
            actual: .milliseconds(40_012), outcome: .sent)
        let event = try #require(
            SessionEventPayload.event(for: .cue(record, session: SessionID("s-1")!, names: [Self.lamp: "lamp"])))
        #expect(event.type == "session_cue")
        #expect(
            Self.text(.object(event.data))
                == #"{"actual_seconds":40.0,"description":"\#(record.kind.description)","device":"lamp","id":"s-1","#
                + #""index":4,"kind":"bell:0:1","lateness_ms":12,"outcome":"sent","planned_seconds":40.0}"#)
    }

    @Test("the other announcements' events, and none for the status")
    func otherEvents() throws {
        let id = SessionID("s-2")!
        let started = try #require(
            SessionEventPayload.event(
                for: .started(
                    SessionStatus(
                        id: id, presetName: "calm", state: .running, phase: .warmUp, elapsed: .zero, remaining: nil,
                        nextBell: nil, firedCues: 0, skippedCues: 0, totalCues: 2, devices: [:]),
                    devices: [Self.lamp], names: [:], resumed: true, length: nil)))
        #expect(started.type == "session_started")
        #expect(
            Self.text(.object(started.data))
                == #"{"devices":["bf0000000000000000lamp"],"id":"s-2","length_seconds":null,"preset":"calm","resumed":true}"#
        )
        let ended = try #require(
            SessionEventPayload.event(for: .ended(id, preset: "calm", state: .stopped, elapsed: .milliseconds(1500))))
        #expect(ended.type == "session_ended")
        #expect(
            Self.text(.object(ended.data)) == #"{"elapsed_seconds":1.5,"id":"s-2","preset":"calm","state":"stopped"}"#)
        let badge = try #require(SessionEventPayload.event(for: .badgeEarned(.streak7)))
        #expect(badge.type == "badge_earned")
        #expect(Self.text(.object(badge.data)) == #"{"badge":"streak_7","name":"7-day streak"}"#)
        let paused = try #require(SessionEventPayload.event(for: .paused(id, elapsed: .seconds(3))))
        #expect(
            paused.type == "session_paused" && Self.text(.object(paused.data)) == #"{"elapsed_seconds":3.0,"id":"s-2"}"#
        )
        #expect(SessionEventPayload.event(for: .status(nil, names: [:])) == nil)
    }
}
