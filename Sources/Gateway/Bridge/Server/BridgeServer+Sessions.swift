import Foundation
import SessionEngine
import TuyaCore

extension BridgeTopics {
    /// Retained: the active session's status, or `{"state":"idle"}`.
    public var session: String { base + "/bridge/session" }
}

extension BridgePublisher {
    /// What the session service announces, published here: events on `bridge/event` (and
    /// the event log), the status on the retained `bridge/session`, cue lateness in metrics.
    public var sessionAnnouncer: SessionAnnouncer {
        SessionAnnouncer(
            event: { [weak self] type, data in await self?.emit(type, data) },
            status: { [weak self] status in self?.publishSessionStatus(status) },
            cue: { [metrics] record in metrics.recordCue(lateness: record.lateness) })
    }
}

extension BridgeServer {
    func performSession(_ request: SessionBridgeRequest) async throws -> [String: JSONValue] {
        guard let sessions else { throw BridgeFailure(message: "the timer is not running in this gateway") }
        do throws(SessionServiceError) {
            switch request {
            case .start(let start):
                let status = try await sessions.start(start)
                return await json(status, sessions)
            case .pause: return await json(try await sessions.pause(), sessions)
            case .resume: return await json(try await sessions.resume(), sessions)
            case .stop(let immediately): return await json(try await sessions.stop(immediately: immediately), sessions)
            case .status: return (await sessions.statusJSON()).objectValue ?? [:]
            case .history(let limit): return try await historyJSON(sessions.history(limit: limit ?? 20))
            }
        } catch {
            throw BridgeFailure(message: error.description)
        }
    }

    private func json(_ status: SessionStatus, _ sessions: SessionService) async -> [String: JSONValue] {
        let names = Dictionary(
            await controller.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return SessionStatusPayload.json(status, names: names).objectValue ?? [:]
    }

    private func historyJSON(_ report: SessionHistoryReport) -> [String: JSONValue] {
        [
            "completed_sessions": .integer(Int64(report.summary.completedSessions)),
            "total_seconds": SessionStatusPayload.seconds(report.summary.totalTime),
            "current_streak_days": .integer(Int64(report.summary.currentStreak)),
            "longest_streak_days": .integer(Int64(report.summary.longestStreak)),
            "badges": .array(Badge.allCases.filter(report.badges.contains).map { .string($0.rawValue) }),
            "sessions": .array(report.sessions.map(SessionStatusPayload.history)),
        ]
    }
}
