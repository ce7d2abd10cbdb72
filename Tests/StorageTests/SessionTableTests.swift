import Foundation
import GRDB
import Testing
import TuyaCore

@testable import Storage

/// Real SQLite files: timer sessions, their cue logs and badges survive reopening, and a
/// restart finds exactly the sessions that were still going.
@Suite("Storage: timer sessions")
struct SessionTableTests {
    static let started = Date(timeIntervalSince1970: 1_790_000_000)

    static func session(_ id: String, state: String, startedAt: Date = started) -> StoredSession {
        StoredSession(
            id: id, preset: "calm", state: state, startedAt: startedAt, elapsedMilliseconds: 0,
            devices: [Fixture.lampID, Fixture.diffuserID],
            detail: .object(["stages": .array([.object(["name": .string("sit"), "minutes": .integer(10)])])]))
    }

    @Test("a session, its state updates and its cue log survive closing and reopening the database")
    func roundTrip() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        do {
            let database = try GatewayDatabase.open(directory: scratch.state)
            try await database.saveSession(Self.session("s-1", state: "running"))
            try await database.recordCue(
                StoredCue(
                    index: 0, kind: "start", device: Fixture.lampID, plannedMilliseconds: 0, actualMilliseconds: 3,
                    outcome: "sent"),
                session: "s-1")
            // Logged again when the device confirmed: replaced, not duplicated.
            try await database.recordCue(
                StoredCue(
                    index: 0, kind: "start", device: Fixture.lampID, plannedMilliseconds: 0, actualMilliseconds: 3,
                    outcome: "confirmed"),
                session: "s-1")
            try await database.recordCue(
                StoredCue(
                    index: 1, kind: "bell", device: nil, plannedMilliseconds: 180_000, actualMilliseconds: 180_004,
                    outcome: "marked"),
                session: "s-1")
            try await database.updateSession(
                "s-1", state: "paused", elapsedMilliseconds: 200_000, endingStartedMilliseconds: nil, endedAt: nil)
            try database.close()
        }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let stored = try #require(try await database.session("s-1"))
        #expect(stored.state == "paused")
        #expect(stored.elapsedMilliseconds == 200_000)
        #expect(stored.devices == [Fixture.lampID, Fixture.diffuserID])
        #expect(stored.detail == Self.session("s-1", state: "running").detail)
        #expect(stored.startedAt == Self.started)
        let cues = try await database.cues(ofSession: "s-1")
        #expect(cues.map(\.index) == [0, 1])
        #expect(cues.map(\.outcome) == ["confirmed", "marked"])
        #expect(cues[1].actualMilliseconds - cues[1].plannedMilliseconds == 4)
    }

    @Test("a restart finds the sessions still going; history lists the rest newest first")
    func activeAndHistory() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        for (index, state) in ["completed", "running", "stopped", "paused", "interrupted"].enumerated() {
            try await database.saveSession(
                Self.session(
                    "s-\(index)", state: state, startedAt: Self.started.addingTimeInterval(Double(index) * 3600)))
        }
        #expect(try await database.sessions(inStates: ["running", "paused"]).map(\.id) == ["s-1", "s-3"])
        #expect(
            try await database.sessionHistory(excluding: ["running", "paused"], limit: nil).map(\.id) == [
                "s-4", "s-2", "s-0",
            ])
        #expect(try await database.sessionHistory(excluding: ["running", "paused"], limit: 1).map(\.id) == ["s-4"])
        await #expect(throws: StorageError.notFound("session nope")) {
            try await database.updateSession(
                "nope", state: "running", elapsedMilliseconds: 0, endingStartedMilliseconds: nil, endedAt: nil)
        }
    }

    @Test(
        "a session or reminder row with a value of the wrong type (edited by hand) is left out at start, never a trap"
    )
    func wrongTypes() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveSession(Self.session("s-good", state: "running"))
        try await database.saveSession(Self.session("s-bad", state: "running"))
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        let lamp = Fixture.lampID.rawValue
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE sessions SET elapsed_ms = 'abc' WHERE id = 's-bad'")
            try db.execute(
                sql: """
                    INSERT INTO maintenance_reminders (device_id, type, status, state, updated_at)
                    VALUES (?, 'refill', x'ff', '{}', '2026-01-01 00:00:00.000')
                    """,
                arguments: [lamp])
        }
        #expect(try await database.sessions(inStates: ["running"]).map(\.id) == ["s-good"])
        #expect(try await database.session("s-bad") == nil)
        #expect(try await database.maintenanceReminders().isEmpty)
    }

    @Test("a badge is stored once and keeps the date it was first earned")
    func badges() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        #expect(try await database.saveBadges(["first-session"], earnedAt: Self.started) == ["first-session"])
        let later = Self.started.addingTimeInterval(86_400)
        #expect(try await database.saveBadges(["first-session", "streak-7"], earnedAt: later) == ["streak-7"])
        #expect(try await database.earnedBadges() == ["first-session": Self.started, "streak-7": later])
    }
}
