import Foundation
import SessionEngine
import TuyaCore

extension BridgeTopics {
    /// Retained: the active session's status, or `{"state":"idle"}`.
    public var session: String { base + "/bridge/session" }
}

extension BridgePublisher {
    /// What the timer announces, published here: events on `bridge/event` (and the event
    /// log), the status on the retained `bridge/session`, cue lateness in the metrics.
    public func announce(_ announcement: SessionAnnouncement) async {
        switch announcement {
        case .status(let status, let names):
            publishSessionStatus(SessionStatusPayload(status, names: names).json)
        case .cue(let record, _, _):
            metrics.recordCue(lateness: record.lateness)
        default:
            break
        }
        if let event = SessionEventPayload.event(for: announcement) { await emit(event.type, event.data) }
    }
}

extension BridgeServer {
    func performSession(_ request: SessionBridgeRequest) async throws -> [String: JSONValue] {
        guard let sessions else { throw BridgeFailure(message: "the timer is not running in this gateway") }
        do throws(SessionServiceError) {
            switch request {
            case .start(let start): return await data(try await sessions.start(start))
            case .pause: return await data(try await sessions.pause())
            case .resume: return await data(try await sessions.resume())
            case .stop(let immediately): return await data(try await sessions.stop(immediately: immediately))
            case .status:
                let named = await sessions.namedStatus()
                return BridgeJSON.object(SessionStatusPayload(named?.status, names: named?.names ?? [:]))
            case .history(let limit):
                return BridgeJSON.object(
                    SessionHistoryPayload(
                        try await sessions.history(limit: limit ?? 20), timeZone: await sessions.settings.timeZone))
            }
        } catch {
            throw BridgeFailure(message: error.description)
        }
    }

    /// A status with the devices named as they are now.
    private func data(_ status: SessionStatus) async -> [String: JSONValue] {
        let names = Dictionary(
            await controller.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return BridgeJSON.object(SessionStatusPayload(status, names: names))
    }
}
