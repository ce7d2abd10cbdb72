import Foundation
import SessionEngine
import TuyaCore

/// A session announcement as the bridge's `bridge/event` carries it: `session_started`,
/// `session_cue`, `session_paused`, `session_resumed`, `session_ended`, `badge_earned`.
/// The retained status (`SessionAnnouncement.status`) is not an event.
public enum SessionEventPayload {
    struct Started: Codable, Hashable {
        var id: String
        var preset: String
        var resumed: Bool
        /// Friendly names.
        var devices: [String]
        /// Nil for an open-ended session.
        @NullWhenAbsent var lengthSeconds: SessionSeconds?

        enum CodingKeys: String, CodingKey {
            case id, preset, resumed, devices
            case lengthSeconds = "length_seconds"
        }
    }

    struct Cue: Codable, Hashable {
        var id: String
        var index: Int
        var kind: String
        var description: String
        /// The device's friendly name; nil for a marker (a bell with no device).
        @NullWhenAbsent var device: String?
        var plannedSeconds: SessionSeconds
        var actualSeconds: SessionSeconds
        var latenessMilliseconds: Int64
        var outcome: String

        enum CodingKeys: String, CodingKey {
            case id, index, kind, description, device, outcome
            case plannedSeconds = "planned_seconds"
            case actualSeconds = "actual_seconds"
            case latenessMilliseconds = "lateness_ms"
        }

        init(_ record: CueRecord, session: SessionID, names: [DeviceID: String]) {
            id = session.rawValue
            index = record.cueIndex
            kind = record.kind.rawValue
            description = record.kind.description
            device = record.deviceID.map { names[$0] ?? $0.rawValue }
            plannedSeconds = SessionSeconds(record.planned)
            actualSeconds = SessionSeconds(record.actual)
            latenessMilliseconds = record.lateness.wholeMilliseconds
            outcome = record.outcome.description
        }
    }

    struct Elapsed: Codable, Hashable {
        var id: String
        var elapsedSeconds: SessionSeconds

        enum CodingKeys: String, CodingKey {
            case id
            case elapsedSeconds = "elapsed_seconds"
        }
    }

    struct Ended: Codable, Hashable {
        var id: String
        var preset: String
        var state: SessionState
        var elapsedSeconds: SessionSeconds

        enum CodingKeys: String, CodingKey {
            case id, preset, state
            case elapsedSeconds = "elapsed_seconds"
        }
    }

    struct BadgeEarned: Codable, Hashable {
        var badge: Badge
        var name: String
    }

    /// The event's type and data; nil for the retained status.
    public static func event(for announcement: SessionAnnouncement) -> (type: String, data: [String: JSONValue])? {
        switch announcement {
        case .started(let status, let devices, let names, let resumed, let length):
            let payload = Started(
                id: status.id.rawValue, preset: status.presetName, resumed: resumed,
                devices: devices.map { names[$0] ?? $0.rawValue }, lengthSeconds: length.map(SessionSeconds.init))
            return ("session_started", BridgeJSON.object(payload))
        case .cue(let record, let session, let names):
            return ("session_cue", BridgeJSON.object(Cue(record, session: session, names: names)))
        case .paused(let id, let elapsed):
            return ("session_paused", BridgeJSON.object(Elapsed(id: id.rawValue, elapsedSeconds: .init(elapsed))))
        case .resumed(let id, let elapsed):
            return ("session_resumed", BridgeJSON.object(Elapsed(id: id.rawValue, elapsedSeconds: .init(elapsed))))
        case .ended(let id, let preset, let state, let elapsed):
            let payload = Ended(id: id.rawValue, preset: preset, state: state, elapsedSeconds: .init(elapsed))
            return ("session_ended", BridgeJSON.object(payload))
        case .badgeEarned(let badge):
            return ("badge_earned", BridgeJSON.object(BadgeEarned(badge: badge, name: badge.description)))
        case .status:
            return nil
        }
    }
}
