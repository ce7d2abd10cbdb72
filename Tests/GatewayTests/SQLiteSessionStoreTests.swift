import Foundation
import Gateway
import SessionEngine
import Storage
import Synchronization
import Testing
import TuyaCore

/// Real parts: an SQLite database file in a temporary directory.
@Suite("timer sessions stored in SQLite")
struct SQLiteSessionStoreTests {
    static let lamp = DeviceID("bf0123456789abcdefghij")!
    static let diffuser = DeviceID("bf9876543210zyxwvutsrq")!
    static let started = Date(timeIntervalSince1970: 1_790_000_000)

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("youll-sessions-\(UUID().uuidString)")
    }

    static func record(_ id: String = "s-1", state: SessionState = .running) -> SessionRecord {
        let stages = [
            SessionStage(name: "settle", length: .seconds(90), bellInterval: .seconds(30)),
            SessionStage(name: "sit", length: .milliseconds(1500)),
        ]
        return SessionRecord(
            id: SessionID(id)!, presetName: "focus",
            configuration: SessionConfiguration(warmUp: .seconds(10), length: .stages(stages)),
            session: ResolvedSession(warmUp: .seconds(10), stages: stages, isOpenEnded: false),
            devices: [lamp, diffuser], state: state, startedAt: started, elapsed: .milliseconds(61_250),
            captured: [
                lamp: .light(
                    LightState(
                        power: true, mode: "colour", brightness: 40,
                        colour: HSVColour(hue: 120, saturation: 50, value: 80))),
                diffuser: .diffuser(DiffuserState(power: false, mist: false, mistMode: "small", faults: ["water"])),
            ])
    }

    @Test("a session with its stages, captured states and cue log survives reopening the database")
    func roundTrip() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = Self.record()
        let cues = [
            CueRecord(
                cueIndex: 0, kind: .start, deviceID: Self.lamp, planned: .zero, actual: .milliseconds(3),
                outcome: .confirmed),
            CueRecord(
                cueIndex: 1, kind: .bell(stage: 0, ring: 1), deviceID: nil, planned: .seconds(40),
                actual: .milliseconds(40_004), outcome: .marked),
            CueRecord(
                cueIndex: 2, kind: .bellReturn(stage: 0, ring: 1), deviceID: Self.diffuser, planned: .seconds(42),
                actual: .seconds(42), outcome: .skipped(.unavailable(.offline))),
            CueRecord(
                cueIndex: 3, kind: .rampStep(step: 2, of: 10), deviceID: Self.lamp, planned: .seconds(100),
                actual: .seconds(100), outcome: .skipped(.notApplied("desk lamp did not confirm in 5 s"))),
        ]
        do {
            let database = try GatewayDatabase.open(directory: directory)
            let store = SQLiteSessionStore(database: database)
            try await store.save(record)
            for cue in cues { try await store.record(cue, in: record.id) }
            try database.close()
        }
        let store = SQLiteSessionStore(database: try GatewayDatabase.open(directory: directory))
        #expect(try await store.session(record.id) == record)
        #expect(try await store.cueLog(of: record.id) == cues)
        #expect(try await store.activeSessions() == [record])
        #expect(try await store.history(limit: nil).isEmpty)

        try await store.update(
            record.id, state: .stopped, elapsed: .milliseconds(70_000), endingStartedAt: .milliseconds(69_000),
            endedAt: Self.started.addingTimeInterval(80))
        let stopped = try #require(try await store.session(record.id))
        #expect(stopped.state == .stopped)
        #expect(stopped.elapsed == .milliseconds(70_000))
        #expect(stopped.endingStartedAt == .milliseconds(69_000))
        #expect(try await store.activeSessions().isEmpty)
        #expect(try await store.history(limit: 5).map(\.id) == [record.id])
    }

    @Test("open-ended and until sessions keep their configuration")
    func otherLengths() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteSessionStore(database: try GatewayDatabase.open(directory: directory))
        var open = Self.record("open")
        open.configuration = SessionConfiguration(length: .openEnded(bellInterval: .seconds(300)))
        open.session.isOpenEnded = true
        var until = Self.record("until")
        until.configuration = SessionConfiguration(
            warmUp: .seconds(5), length: .until(try TimeOfDay(parsing: "07:30"), bellInterval: nil))
        for record in [open, until] {
            try await store.save(record)
            #expect(try await store.session(record.id) == record)
        }
    }

    @Test(
        "stopped and interrupted sessions beyond the newest kept go with their cue logs; completed and running ones stay"
    )
    func unfinishedSessionsAreTrimmed() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteSessionStore(database: try GatewayDatabase.open(directory: directory), keptUnfinished: 3)
        func session(_ id: String, hoursIn hours: Double) -> SessionRecord {
            var record = Self.record(id)
            record.startedAt = Self.started.addingTimeInterval(hours * 3600)
            return record
        }
        let running = session("going", hoursIn: 0)
        try await store.save(running)
        for (index, hours) in [1.0, 30].enumerated() {
            let record = session("done-\(index)", hoursIn: hours)
            try await store.save(record)
            try await store.update(
                record.id, state: .completed, elapsed: .seconds(600), endingStartedAt: nil,
                endedAt: record.startedAt.addingTimeInterval(600))
        }
        let cue = CueRecord(
            cueIndex: 0, kind: .start, deviceID: Self.lamp, planned: .zero, actual: .zero, outcome: .confirmed)
        for index in 0..<6 {
            let record = session("quit-\(index)", hoursIn: 2 + Double(index))
            try await store.save(record)
            try await store.record(cue, in: record.id)
            try await store.update(
                record.id, state: index == 5 ? .interrupted : .stopped, elapsed: .seconds(5), endingStartedAt: nil,
                endedAt: record.startedAt.addingTimeInterval(5))
        }
        let kept = try await store.history(limit: nil).map(\.id.rawValue)
        #expect(kept == ["done-1", "quit-5", "quit-4", "quit-3", "done-0"])
        #expect(try await store.cueLog(of: SessionID("quit-0")!).isEmpty, "the trimmed session's cue log went too")
        #expect(try await store.cueLog(of: SessionID("quit-3")!) == [cue])
        #expect(try await store.activeSessions().map(\.id) == [running.id])
        let summaries = try await store.completedSummaries()
        #expect(
            summaries.map(\.startedAt) == [
                Self.started.addingTimeInterval(3600), Self.started.addingTimeInterval(30 * 3600),
            ])
        #expect(summaries.allSatisfy { $0.duration == .seconds(600) && $0.state == .completed })
        // Newest by end: the session that started first and is stopped now stays, and the
        // stopped session that ended longest ago goes.
        try await store.update(
            running.id, state: .stopped, elapsed: .seconds(5), endingStartedAt: nil,
            endedAt: Self.started.addingTimeInterval(100 * 3600))
        #expect(
            try await store.history(limit: nil).map(\.id.rawValue) == ["done-1", "quit-5", "quit-4", "done-0", "going"])
    }

    @Test("a checkpoint saves only the time, only of a session still running: a pause or an end written first stays")
    func checkpointIsConditional() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteSessionStore(database: try GatewayDatabase.open(directory: directory))
        let record = Self.record()
        try await store.save(record)
        try await store.update(
            record.id, state: .running, elapsed: .seconds(70), endingStartedAt: .seconds(65), endedAt: nil)
        try await store.checkpoint(record.id, elapsed: .seconds(90), at: Date())
        var stored = try #require(try await store.session(record.id))
        #expect(stored.elapsed == .seconds(90))
        #expect(stored.endingStartedAt == .seconds(65), "the stop's ending stays")
        for state in [SessionState.paused, .completed] {
            try await store.update(record.id, state: state, elapsed: .seconds(95), endingStartedAt: nil, endedAt: nil)
            try await store.checkpoint(record.id, elapsed: .seconds(120), at: Date())
            stored = try #require(try await store.session(record.id))
            #expect(stored.state == state)
            #expect(stored.elapsed == .seconds(95), "\(state): the checkpoint came too late and changed nothing")
        }
    }

    @Test("badges are stored once")
    func badges() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteSessionStore(database: try GatewayDatabase.open(directory: directory))
        try await store.saveBadges([.firstSession], earnedAt: Self.started)
        try await store.saveBadges([.firstSession, .streak7], earnedAt: Self.started.addingTimeInterval(86_400))
        #expect(try await store.earnedBadges() == [.firstSession, .streak7])
    }

    @Test(
        "a damaged detail is a clear error naming the field, and the lists leave the row out",
        arguments: [
            (JSONValue.string("garbage"), "detail"),
            (.object(["session": .null]), "detail.configuration"),
            (
                .object([
                    "configuration": .object(["kind": .string("stages"), "stages": .array([])]),
                    "session": .object([
                        "stages": .array([.object(["name": .string("x"), "length_ms": .string("long")])])
                    ]),
                ]), "detail.session.stages[0].length_ms"
            ),
            (
                .object([
                    "configuration": .object(["kind": .string("open_ended")]),
                    "session": .object([
                        "stages": .array([.object(["name": .string("x"), "length_ms": .integer(1000)])])
                    ]),
                    "captured": .object(["lamp!": .object([:])]),
                ]), "detail.captured"
            ),
            (
                .object([
                    "configuration": .object(["kind": .string("open_ended")]),
                    "session": .object([
                        "stages": .array([.object(["name": .string("x"), "length_ms": .integer(1000)])])
                    ]),
                    "captured": .object([
                        lamp.rawValue: .object(["kind": .string("light"), "colour": .array([.integer(999)])])
                    ]),
                ]), "detail.captured.\(lamp.rawValue).colour"
            ),
        ])
    func damagedDetail(detail: JSONValue, field: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try GatewayDatabase.open(directory: directory)
        let warnings = Warnings()
        let store = SQLiteSessionStore(database: database, warn: { warnings.add($0) })
        try await store.save(Self.record("good"))
        try await database.saveSession(
            StoredSession(
                id: "bad", preset: "calm", state: "running", startedAt: Self.started, elapsedMilliseconds: 0,
                devices: [], detail: detail))
        do {
            _ = try await store.session(SessionID("bad")!)
            Issue.record("a damaged row loaded")
        } catch let error as SessionDetailError {
            #expect(error.field == field)
            #expect(error.description.contains("stored session bad"))
        }
        #expect(try await store.activeSessions().map(\.id.rawValue) == ["good"])
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains(field) == true)
    }

    @Test("a cue log line with an unknown kind is an error naming the cue")
    func damagedCue() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try GatewayDatabase.open(directory: directory)
        let store = SQLiteSessionStore(database: database)
        try await store.save(Self.record())
        try await database.recordCue(
            StoredCue(
                index: 7, kind: "bell:x", device: nil, plannedMilliseconds: 0, actualMilliseconds: 0, outcome: "marked"),
            session: "s-1")
        await #expect {
            try await store.cueLog(of: SessionID("s-1")!)
        } throws: { error in
            (error as? SessionDetailError)?.field == "cue 7.kind"
        }
    }
}

/// Collects the store's warnings from its `@Sendable` closure.
final class Warnings: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
