import Foundation
import SessionEngine
import Storage
import Timing
import TuyaCore

/// `SessionStore` over the gateway's SQLite database: the engine's records become
/// `StoredSession` rows whose `detail` JSON holds the configuration, the resolved stages
/// and the states captured at the start (`StoredSessionDetail`).
///
/// A damaged row (hand-edited, or written by a broken build) is never a crash: loading it
/// by id throws a `SessionDetailError` naming the field; the lists (`activeSessions`,
/// `history`) leave it out and say so through `warn`, so one bad row cannot stop the
/// daemon from starting or hide every other session.
public struct SQLiteSessionStore: SessionStore {
    let database: GatewayDatabase
    let warn: @Sendable (String) -> Void
    /// How many stopped and interrupted sessions are kept (`keptUnfinishedSessions`).
    let keptUnfinished: Int

    public init(
        database: GatewayDatabase, keptUnfinished: Int = Self.keptUnfinishedSessions,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.database = database
        self.keptUnfinished = max(0, keptUnfinished)
        self.warn = warn
    }

    static let activeStates: [SessionState] = [.running, .paused, .scheduled]

    public func save(_ record: SessionRecord) async throws {
        try await database.saveSession(
            StoredSession(
                id: record.id.rawValue, preset: record.presetName, state: record.state.rawValue,
                startedAt: record.startedAt, endedAt: record.endedAt,
                elapsedMilliseconds: record.elapsed.wholeMilliseconds, elapsedAt: record.elapsedAt,
                endingStartedMilliseconds: record.endingStartedAt?.wholeMilliseconds,
                devices: record.devices, detail: BridgeJSON.value(StoredSessionDetail(record))))
    }

    /// Stopped and interrupted sessions kept (newest first); older ones go with their cue logs
    /// when another ends. They count towards no total or streak, and a client starting and
    /// stopping sessions in a loop must not grow the database without bound. Completed sessions
    /// are all kept: each took at least a minute of real time, and the totals are made of them.
    public static let keptUnfinishedSessions = 1_000

    public func update(
        _ id: SessionID, state: SessionState, elapsed: Duration, elapsedAt: Date?, endingStartedAt: Duration?,
        endedAt: Date?
    ) async throws {
        try await database.updateSession(
            id.rawValue, state: state.rawValue, elapsedMilliseconds: elapsed.wholeMilliseconds, elapsedAt: elapsedAt,
            endingStartedMilliseconds: endingStartedAt?.wholeMilliseconds, endedAt: endedAt)
        guard Self.unfinishedStates.contains(state) else { return }
        // Best effort: the session's end is stored; a failed trim must not turn it into an
        // error (which would skip the end's announcement). The next end tries again.
        do {
            try await database.keepNewestSessions(keptUnfinished, inStates: Self.unfinishedStates.map(\.rawValue))
        } catch {
            warn("could not trim old stopped sessions: \(error)")
        }
    }

    static let unfinishedStates: [SessionState] = [.stopped, .interrupted]

    public func checkpoint(_ id: SessionID, elapsed: Duration, at time: Date) async throws {
        try await database.checkpointSession(
            id.rawValue, elapsedMilliseconds: elapsed.wholeMilliseconds, at: time,
            ifState: SessionState.running.rawValue)
    }

    public func record(_ cue: CueRecord, in session: SessionID) async throws {
        try await database.recordCue(Self.stored(cue), session: session.rawValue)
    }

    public func replaceCueLog(_ log: [CueRecord], of session: SessionID) async throws {
        try await database.replaceCues(log.map(Self.stored), session: session.rawValue)
    }

    private static func stored(_ cue: CueRecord) -> StoredCue {
        StoredCue(
            index: cue.cueIndex, kind: cue.kind.rawValue, device: cue.deviceID,
            plannedMilliseconds: cue.planned.wholeMilliseconds, actualMilliseconds: cue.actual.wholeMilliseconds,
            outcome: cue.outcome.rawValue)
    }

    public func cueLog(of session: SessionID) async throws -> [CueRecord] {
        try await database.cues(ofSession: session.rawValue).map { (stored: StoredCue) throws(SessionDetailError) in
            guard let kind = SessionCue.Kind(rawValue: stored.kind) else {
                throw SessionDetailError(
                    session: session.rawValue, field: "cue \(stored.index).kind",
                    reason: "\"\(stored.kind.prefix(40))\" is not a cue kind")
            }
            guard let outcome = CueOutcome(rawValue: stored.outcome) else {
                throw SessionDetailError(
                    session: session.rawValue, field: "cue \(stored.index).outcome",
                    reason: "\"\(stored.outcome.prefix(40))\" is not a cue outcome")
            }
            return CueRecord(
                cueIndex: stored.index, kind: kind, deviceID: stored.device,
                planned: .milliseconds(stored.plannedMilliseconds), actual: .milliseconds(stored.actualMilliseconds),
                outcome: outcome)
        }
    }

    /// One session by id; nil when there is none. Throws `SessionDetailError` for a damaged row.
    public func session(_ id: SessionID) async throws -> SessionRecord? {
        try await database.session(id.rawValue).map(Self.record(from:))
    }

    public func activeSessions() async throws -> [SessionRecord] {
        readable(try await database.sessions(inStates: Self.activeStates.map(\.rawValue)))
    }

    public func history(limit: Int?) async throws -> [SessionRecord] {
        readable(
            try await database.sessionHistory(excluding: Self.activeStates.map(\.rawValue), limit: limit))
    }

    public func completedSummaries() async throws -> [SessionSummary] {
        try await database.sessionSpans(inState: SessionState.completed.rawValue).map { span in
            SessionSummary(
                startedAt: span.startedAt, duration: .milliseconds(span.elapsedMilliseconds), state: .completed)
        }
    }

    public func earnedBadges() async throws -> Set<Badge> {
        Set(try await database.earnedBadges().keys.compactMap(Badge.init(rawValue:)))
    }

    public func saveBadges(_ badges: [Badge], earnedAt: Date) async throws {
        try await database.saveBadges(badges.map(\.rawValue), earnedAt: earnedAt)
    }

    private func readable(_ rows: [StoredSession]) -> [SessionRecord] {
        rows.compactMap { row in
            do {
                return try Self.record(from: row)
            } catch {
                warn("\(error)")
                return nil
            }
        }
    }

    static func record(from row: StoredSession) throws(SessionDetailError) -> SessionRecord {
        guard let id = SessionID(row.id) else {
            throw SessionDetailError(session: String(row.id.prefix(64)), field: "id", reason: "is not a session id")
        }
        guard let state = SessionState(rawValue: row.state) else {
            throw SessionDetailError(session: row.id, field: "state", reason: "\"\(row.state.prefix(32))\" is unknown")
        }
        let detail = try StoredSessionDetail.read(row.detail, session: row.id)
        return SessionRecord(
            id: id, presetName: row.preset, configuration: detail.configuration.configuration,
            session: detail.session.session,
            devices: row.devices, state: state, startedAt: row.startedAt, endedAt: row.endedAt,
            elapsed: .milliseconds(row.elapsedMilliseconds), elapsedAt: row.elapsedAt,
            endingStartedAt: row.endingStartedMilliseconds.map { .milliseconds($0) },
            captured: detail.captured?.states ?? [:])
    }
}
