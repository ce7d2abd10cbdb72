import Foundation

/// Where sessions, their cue logs and earned badges are kept. Declared here, implemented
/// by `Storage` (SQLite); the gateway writes through it as the runner's events arrive.
public protocol SessionStore: Sendable {
    /// Inserts the session, or replaces the record with the same id.
    func save(_ record: SessionRecord) async throws

    /// The frequent write while a session runs: its state and elapsed time, and when that time
    /// was true (`elapsedAt`, for a paused session when its pause began; nil keeps the stored
    /// one).
    func update(
        _ id: SessionID, state: SessionState, elapsed: Duration, elapsedAt: Date?, endingStartedAt: Duration?,
        endedAt: Date?
    ) async throws

    /// Saves the elapsed time of a session still stored as running, and when it was true, and
    /// nothing else: it races with the session's own writes (a pause, the end, a stop's
    /// ending) and must never undo them.
    func checkpoint(_ id: SessionID, elapsed: Duration, at time: Date) async throws

    /// Adds a cue to the session's log, or replaces the entry with the same cue index
    /// (a cue is logged when it fires and again when its command settles).
    func record(_ cue: CueRecord, in session: SessionID) async throws

    /// The session's cue log in index order: a restarted session skips these cues.
    func cueLog(of session: SessionID) async throws -> [CueRecord]

    /// Replaces the session's whole cue log, in one write: a resumed session whose plan is
    /// numbered anew (a device was removed) keeps its log in the new numbering.
    func replaceCueLog(_ log: [CueRecord], of session: SessionID) async throws

    /// Sessions that were running or paused when the daemon last stopped.
    func activeSessions() async throws -> [SessionRecord]

    /// Finished sessions, newest first; nil for all of them.
    func history(limit: Int?) async throws -> [SessionRecord]

    /// Every completed session's start and length, for totals, streaks and badges: without
    /// each session's plan and captured states, which `history` decodes.
    func completedSummaries() async throws -> [SessionSummary]

    func earnedBadges() async throws -> Set<Badge>

    /// Stores badges once; a badge already stored keeps its first date.
    func saveBadges(_ badges: [Badge], earnedAt: Date) async throws
}

extension SessionStore {
    /// `update` keeping the stored `elapsedAt`: for a session's end, where it no longer matters.
    public func update(
        _ id: SessionID, state: SessionState, elapsed: Duration, endingStartedAt: Duration?, endedAt: Date?
    ) async throws {
        try await update(
            id, state: state, elapsed: elapsed, elapsedAt: nil, endingStartedAt: endingStartedAt, endedAt: endedAt)
    }
}
