import Foundation
import GRDB
import Testing
import TuyaCore

@testable import Storage

/// A state database restored from a backup, or edited by hand, can hold a value of the wrong
/// type in any column (the tables are not STRICT, and `integrity_check` does not look at
/// types). Each read the daemon makes at start, on a bridge request or at a session's end
/// leaves such a row out; GRDB's typed reads would stop the process on it.
@Suite("Storage: rows edited by hand")
struct HandEditedRowTests {
    static let at = Date(timeIntervalSince1970: 1_790_000_000)

    /// A database holding one good and one damaged row of a table, made by `damage`.
    private static func database(
        _ scratch: ScratchDirectory, good: (GatewayDatabase) async throws -> Void,
        damage: String
    ) async throws -> GatewayDatabase {
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await good(database)
        try await database.pool.write { db in try db.execute(sql: damage) }
        return database
    }

    @Test("a cue whose planned time is text is left out of the session's cue log; the others are read")
    func cueLog() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await Self.database(
            scratch,
            good: { database in
                try await database.saveSession(SessionTableTests.session("s-1", state: "running"))
                for index in 0..<2 {
                    try await database.recordCue(
                        StoredCue(
                            index: index, kind: "bell", device: Fixture.lampID, plannedMilliseconds: 1000,
                            actualMilliseconds: 1003, outcome: "confirmed"),
                        session: "s-1")
                }
            },
            damage: "UPDATE session_cues SET planned_ms = 'soon' WHERE cue_index = 1")
        #expect(try await database.cues(ofSession: "s-1").map(\.index) == [0])
    }

    @Test("an event whose kind is not text is left out of the recent events (the health check reads them)")
    func events() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await Self.database(
            scratch,
            good: { database in
                try await database.appendEvent("paired", at: Self.at)
                try await database.appendEvent("removed", at: Self.at)
            },
            damage: "UPDATE events SET kind = x'ff' WHERE kind = 'removed'")
        #expect(try await database.recentEvents().map(\.kind) == ["paired"])
    }

    @Test("a badge whose name is not text is left out; the others are still earned")
    func badges() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await Self.database(
            scratch, good: { try await $0.saveBadges(["first-session"], earnedAt: Self.at) },
            damage: "INSERT INTO badges (badge, earned_at) VALUES (x'ff', '2026-01-01 00:00:00.000')")
        #expect(try await database.earnedBadges().keys.sorted() == ["first-session"])
    }

    @Test("a pairing candidate whose frame count is text is left out")
    func candidates() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let stray = try #require(DeviceID("bf00000000000000stray"))
        let database = try await Self.database(
            scratch,
            good: { database in
                try await database.recordCandidate(Fixture.lampID, at: Self.at)
                try await database.recordCandidate(stray, at: Self.at)
            },
            damage: "UPDATE pairing_candidates SET frames = 'many' WHERE dev_id = '\(stray.rawValue)'")
        #expect(try await database.candidates().map(\.id) == [Fixture.lampID])
    }

    @Test("a maintenance transition or an outbox alert with a value of the wrong type is left out")
    func maintenance() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await Self.database(
            scratch,
            good: { database in
                try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
                let transitions = ["refill", "clean"].map {
                    StoredReminderTransition(
                        device: Fixture.lampID, type: $0, from: "ok", to: "due", at: Self.at, cause: "usage")
                }
                try await database.saveMaintenance(reminders: [], transitions: transitions)
                _ = try await database.enqueueAlert(id: "a-good", payload: "{}", at: Self.at)
                _ = try await database.enqueueAlert(id: "a-bad", payload: "{}", at: Self.at)
            },
            damage: """
                UPDATE maintenance_transitions SET cause = x'ff' WHERE type = 'clean';
                UPDATE alert_outbox SET attempts = 'twice' WHERE id = 'a-bad';
                """)
        #expect(try await database.maintenanceTransitions().map(\.type) == ["refill"])
        #expect(try await database.pendingAlerts(limit: 10).map(\.id) == ["a-good"])
        #expect(try await database.outboxAlerts().map(\.id) == ["a-good"])
        // doctor's read-only summary of the outbox still counts both as waiting.
        let summary = try GatewayDatabase.outboxSummaryReadOnly(directory: scratch.state)
        #expect(summary?.pending == 2)
    }

    @Test("a session whose elapsed time is beyond any session is left out of the totals and of those to resume")
    func implausibleElapsed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await Self.database(
            scratch,
            good: { database in
                for id in ["s-1", "s-2", "s-3"] {
                    var session = SessionTableTests.session(id, state: "completed")
                    session.elapsedMilliseconds = 600_000
                    try await database.saveSession(session)
                }
                try await database.saveSession(SessionTableTests.session("s-run", state: "running"))
            },
            damage: """
                UPDATE sessions SET elapsed_ms = 9223372036854775807 WHERE id IN ('s-2', 's-run');
                UPDATE sessions SET elapsed_ms = -5 WHERE id = 's-3';
                """)
        #expect(try await database.sessionSpans(inState: "completed").map(\.elapsedMilliseconds) == [600_000])
        #expect(try await database.sessions(inStates: ["running"]).isEmpty)
    }

    @Test("the CLI's read-only device list leaves out a device whose name is not text")
    func readOnlyDevices() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await Self.database(
            scratch,
            good: { database in
                try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
                try await database.saveDevice(Fixture.diffuser, localKey: Fixture.lampKey)
            },
            damage: "UPDATE devices SET name = x'ff' WHERE id = '\(Fixture.diffuserID.rawValue)'")
        try database.close()
        let devices = try GatewayDatabase.pairedDevicesReadOnly(directory: scratch.state)
        #expect(devices.map(\.id) == [Fixture.lampID])
    }
}
