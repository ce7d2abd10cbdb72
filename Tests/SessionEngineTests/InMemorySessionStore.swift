import Foundation
import SessionEngine
import TuyaCore

/// A `SessionStore` in memory, for the service's unit tests (the SQLite one is tested in
/// GatewayTests against a real database).
actor InMemorySessionStore: SessionStore {
    struct Missing: Error {}

    private var records: [SessionID: SessionRecord] = [:]
    private var cues: [SessionID: [Int: CueRecord]] = [:]
    private var badges: [Badge: Date] = [:]

    private static let going: Set<SessionState> = [.running, .paused, .scheduled]

    func save(_ record: SessionRecord) { records[record.id] = record }

    func update(
        _ id: SessionID, state: SessionState, elapsed: Duration, elapsedAt: Date?, endingStartedAt: Duration?,
        endedAt: Date?
    ) throws {
        guard var record = records[id] else { throw Missing() }
        record.state = state
        record.elapsed = elapsed
        if let elapsedAt { record.elapsedAt = elapsedAt }
        record.endingStartedAt = endingStartedAt
        record.endedAt = endedAt
        records[id] = record
    }

    func checkpoint(_ id: SessionID, elapsed: Duration, at time: Date) {
        guard records[id]?.state == .running else { return }
        records[id]?.elapsed = elapsed
        records[id]?.elapsedAt = time
    }

    func record(_ cue: CueRecord, in session: SessionID) async {
        if holdingCues {
            await withCheckedContinuation { heldCues.append($0) }
        }
        cues[session, default: [:]][cue.cueIndex] = cue
    }

    private var holdingCues = false
    private var heldCues: [CheckedContinuation<Void, Never>] = []

    /// From now on, recording a cue waits until `releaseCues()`: a slow disk, so the service's
    /// events queue up behind one write.
    func holdCues() { holdingCues = true }

    /// Whether a cue write is being held.
    var holdsACue: Bool { !heldCues.isEmpty }

    func releaseCues() {
        holdingCues = false
        for continuation in heldCues { continuation.resume() }
        heldCues.removeAll()
    }

    func replaceCueLog(_ log: [CueRecord], of session: SessionID) {
        cues[session] = Dictionary(log.map { ($0.cueIndex, $0) }) { _, later in later }
    }

    func cueLog(of session: SessionID) -> [CueRecord] {
        (cues[session] ?? [:]).values.sorted { $0.cueIndex < $1.cueIndex }
    }

    func activeSessions() -> [SessionRecord] {
        records.values.filter { Self.going.contains($0.state) }.sorted { $0.startedAt < $1.startedAt }
    }

    func history(limit: Int?) -> [SessionRecord] {
        let finished = records.values.filter { !Self.going.contains($0.state) }.sorted { $0.startedAt > $1.startedAt }
        return Array(finished.prefix(limit ?? finished.count))
    }

    func completedSummaries() -> [SessionSummary] {
        records.values.filter { $0.state == .completed }.map(\.summary)
    }

    func earnedBadges() -> Set<Badge> { Set(badges.keys) }

    func saveBadges(_ new: [Badge], earnedAt: Date) {
        for badge in new where badges[badge] == nil { badges[badge] = earnedAt }
    }

    func session(_ id: SessionID) -> SessionRecord? { records[id] }
}
