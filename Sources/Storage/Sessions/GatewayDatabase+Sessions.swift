import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// Inserts a session, or replaces the one with the same id (its cue log stays).
    public func saveSession(_ session: StoredSession) async throws(StorageError) {
        let devices = StoredJSON.encode(.array(session.devices.map { .string($0.rawValue) }))
        let detail = StoredJSON.encode(session.detail)
        try await write("saving session \(session.id)") { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (id, preset, state, started_at, ended_at, elapsed_ms, elapsed_at,
                        ending_started_ms, devices, detail)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET preset = excluded.preset, state = excluded.state,
                        started_at = excluded.started_at, ended_at = excluded.ended_at, elapsed_ms = excluded.elapsed_ms,
                        elapsed_at = excluded.elapsed_at, ending_started_ms = excluded.ending_started_ms, devices = excluded.devices, detail = excluded.detail
                    """,
                arguments: [
                    session.id, session.preset, session.state, StoredInstant(session.startedAt),
                    session.endedAt.map(StoredInstant.init),
                    session.elapsedMilliseconds, session.elapsedAt.map(StoredInstant.init),
                    session.endingStartedMilliseconds, devices, detail,
                ])
        }
    }

    /// The frequent write while a session runs: its state and elapsed time, and when that time
    /// was true (`elapsedAt`; nil keeps the stored one). Throws `notFound` for a session that
    /// was never saved.
    public func updateSession(
        _ id: String, state: String, elapsedMilliseconds: Int64, elapsedAt: Date? = nil,
        endingStartedMilliseconds: Int64?, endedAt: Date?
    ) async throws(StorageError) {
        let changed = try await write("updating session \(id)") { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET state = ?, elapsed_ms = ?, elapsed_at = COALESCE(?, elapsed_at),
                        ending_started_ms = ?, ended_at = ? WHERE id = ?
                    """,
                arguments: [
                    state, elapsedMilliseconds, elapsedAt.map(StoredInstant.init), endingStartedMilliseconds,
                    endedAt.map(StoredInstant.init), id,
                ])
            return db.changesCount
        }
        if changed == 0 { throw StorageError.notFound("session \(id)") }
    }

    /// Sets a session's elapsed time, and when it was true, only while the session is still in
    /// `state`; touches nothing else.
    public func checkpointSession(_ id: String, elapsedMilliseconds: Int64, at time: Date, ifState state: String)
        async throws(StorageError)
    {
        try await write("saving the time of session \(id)") { db in
            try db.execute(
                sql: "UPDATE sessions SET elapsed_ms = ?, elapsed_at = ? WHERE id = ? AND state = ?",
                arguments: [elapsedMilliseconds, StoredInstant(time), id, state])
        }
    }

    /// Adds a cue to a session's log, or replaces the line with the same index (a cue is
    /// logged when it fires and again when its command settles).
    public func recordCue(_ cue: StoredCue, session: String) async throws(StorageError) {
        try await write("recording cue \(cue.index) of session \(session)") { db in
            try Self.upsert(cue, session: session, in: db)
        }
    }

    private static func upsert(_ cue: StoredCue, session: String, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO session_cues (session_id, cue_index, kind, device_id, planned_ms, actual_ms, outcome)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(session_id, cue_index) DO UPDATE SET kind = excluded.kind,
                    device_id = excluded.device_id, planned_ms = excluded.planned_ms,
                    actual_ms = excluded.actual_ms, outcome = excluded.outcome
                """,
            arguments: [
                session, cue.index, cue.kind, cue.device?.rawValue, cue.plannedMilliseconds, cue.actualMilliseconds,
                cue.outcome,
            ])
    }

    /// Replaces a session's whole cue log in one transaction.
    public func replaceCues(_ cues: [StoredCue], session: String) async throws(StorageError) {
        try await write("renumbering the cue log of session \(session)") { db in
            try db.execute(sql: "DELETE FROM session_cues WHERE session_id = ?", arguments: [session])
            for cue in cues { try Self.upsert(cue, session: session, in: db) }
        }
    }

    /// A session's cue log in cue order.
    public func cues(ofSession session: String) async throws(StorageError) -> [StoredCue] {
        try await read("loading the cue log of session \(session)") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM session_cues WHERE session_id = ? ORDER BY cue_index", arguments: [session]
            ).compactMap(Self.cue(from:))
        }
    }

    /// One session by id.
    public func session(_ id: String) async throws(StorageError) -> StoredSession? {
        try await read("loading session \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE id = ?", arguments: [id]).flatMap(
                Self.session(from:))
        }
    }

    /// Sessions in any of `states`, oldest first (`["running", "paused"]`: those a restart resumes).
    public func sessions(inStates states: [String]) async throws(StorageError) -> [StoredSession] {
        guard !states.isEmpty else { return [] }
        return try await read("loading sessions") { db in
            let marks = Array(repeating: "?", count: states.count).joined(separator: ", ")
            return try Row.fetchAll(
                db, sql: "SELECT * FROM sessions WHERE state IN (\(marks)) ORDER BY started_at, id",
                arguments: StatementArguments(states)
            ).compactMap(Self.session(from:))
        }
    }

    /// Sessions not in `excluding` (the ones still going), newest first; nil limit for all.
    public func sessionHistory(excluding states: [String], limit: Int?) async throws(StorageError) -> [StoredSession] {
        try await read("loading session history") { db in
            let marks = Array(repeating: "?", count: max(1, states.count)).joined(separator: ", ")
            var arguments = StatementArguments(states.isEmpty ? [""] : states)
            var sql = "SELECT * FROM sessions WHERE state NOT IN (\(marks)) ORDER BY started_at DESC, id DESC"
            if let limit {
                sql += " LIMIT ?"
                arguments += [max(0, limit)]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap(Self.session(from:))
        }
    }

    /// When and how long each session in `state` ran, oldest first: what totals and streaks are
    /// made of, without reading (and decoding) every session's stored detail.
    public func sessionSpans(inState state: String) async throws(StorageError) -> [StoredSessionSpan] {
        try await read("loading session totals") { db in
            try Row.fetchAll(
                db, sql: "SELECT started_at, elapsed_ms FROM sessions WHERE state = ? ORDER BY started_at",
                arguments: [state]
            ).compactMap { row in
                guard let elapsed = ColumnReader(row: row).value("elapsed_ms", as: Int64.self),
                    Self.plausibleElapsed.contains(elapsed)
                else { return nil }
                return StoredSessionSpan(
                    startedAt: row.date("started_at") ?? .distantPast, elapsedMilliseconds: elapsed)
            }
        }
    }

    /// Deletes the sessions in `states` (with their cue logs) beyond the newest `limit` of them,
    /// newest by end (by start for one without an end): the session that just ended is the
    /// newest, even when it started long ago. Returns how many went.
    @discardableResult
    public func keepNewestSessions(_ limit: Int, inStates states: [String]) async throws(StorageError) -> Int {
        guard !states.isEmpty else { return 0 }
        return try await write("trimming old sessions") { db in
            let marks = Array(repeating: "?", count: states.count).joined(separator: ", ")
            try db.execute(
                sql: """
                    DELETE FROM sessions WHERE id IN (
                        SELECT id FROM sessions WHERE state IN (\(marks))
                        ORDER BY COALESCE(ended_at, started_at) DESC, id DESC LIMIT -1 OFFSET ?)
                    """,
                arguments: StatementArguments(states) + [max(0, limit)])
            return db.changesCount
        }
    }

    /// Badges earned, with the date each was first earned.
    public func earnedBadges() async throws(StorageError) -> [String: Date] {
        try await read("loading badges") { db in
            var badges: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT badge, earned_at FROM badges") {
                guard let badge = ColumnReader(row: row).text("badge") else { continue }
                badges[badge] = row.date("earned_at")
            }
            return badges
        }
    }

    /// Stores badges once: a badge already stored keeps its first date. Returns those that were new.
    @discardableResult
    public func saveBadges(_ badges: [String], earnedAt: Date) async throws(StorageError) -> [String] {
        try await write("saving badges") { db in
            var added: [String] = []
            for badge in badges {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO badges (badge, earned_at) VALUES (?, ?)",
                    arguments: [badge, StoredInstant(earnedAt)])
                if db.changesCount > 0 { added.append(badge) }
            }
            return added
        }
    }

    /// A stored session, or nil for a row with a value of the wrong type (edited by hand):
    /// left out rather than stopping the process.
    private static func session(from row: Row) -> StoredSession? {
        let reader = ColumnReader(row: row)
        guard let id = reader.text("id"), let preset = reader.text("preset"), let state = reader.text("state"),
            let devicesText = reader.text("devices"), let detailText = reader.text("detail"),
            let elapsed = reader.value("elapsed_ms", as: Int64.self), plausibleElapsed.contains(elapsed),
            let endingStarted = reader.optional("ending_started_ms", as: Int64.self)
        else { return nil }
        var devices: [DeviceID] = []
        if case .array(let items)? = StoredJSON.decode(devicesText) {
            devices = items.compactMap { $0.stringValue.flatMap(DeviceID.init) }
        }
        return StoredSession(
            id: id, preset: preset, state: state, startedAt: row.date("started_at") ?? .distantPast,
            endedAt: row.date("ended_at"), elapsedMilliseconds: elapsed, elapsedAt: row.date("elapsed_at"),
            endingStartedMilliseconds: endingStarted,
            devices: devices, detail: StoredJSON.decode(detailText) ?? .null)
    }

    /// A cue of a session's log, or nil for a row with a value of the wrong type.
    private static func cue(from row: Row) -> StoredCue? {
        let reader = ColumnReader(row: row)
        guard let index = reader.value("cue_index", as: Int.self), let kind = reader.text("kind"),
            let device = reader.optionalText("device_id"),
            let planned = reader.value("planned_ms", as: Int64.self),
            let actual = reader.value("actual_ms", as: Int64.self), let outcome = reader.text("outcome")
        else { return nil }
        return StoredCue(
            index: index, kind: kind, device: device.flatMap(DeviceID.init), plannedMilliseconds: planned,
            actualMilliseconds: actual, outcome: outcome)
    }

    /// How long a stored session can have run: no session lasts beyond 10 years (the bound of
    /// its stored stages); a row outside it was edited and is left out, not summed or resumed.
    static let plausibleElapsed: ClosedRange<Int64> = 0...(10 * 366 * 86_400_000)
}
