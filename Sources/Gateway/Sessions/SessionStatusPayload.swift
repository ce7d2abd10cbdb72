import Foundation
import SessionEngine
import TuyaCore

/// The JSON of `<base>/bridge/session` (retained), `session/status` and the CLI's
/// `timer status --json`: times in seconds with a tenth, devices by friendly name.
public enum SessionStatusPayload {
    /// What the topic holds when no session runs.
    public static let idle: JSONValue = .object(["state": .string("idle")])

    public static func json(_ status: SessionStatus, names: [DeviceID: String]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(status.id.rawValue), "preset": .string(status.presetName),
            "state": .string(status.state.rawValue), "elapsed_seconds": seconds(status.elapsed),
            "remaining_seconds": status.remaining.map(seconds) ?? .null,
            "next_bell_seconds": status.nextBell.map(seconds) ?? .null,
            "cues_fired": .integer(Int64(status.firedCues)), "cues_skipped": .integer(Int64(status.skippedCues)),
            "cues_total": .integer(Int64(status.totalCues)),
        ]
        switch status.phase {
        case .warmUp: fields["phase"] = .string("warm_up")
        case .stage(let index, let name):
            fields["phase"] = .string("stage")
            fields["stage"] = .string(name)
            fields["stage_index"] = .integer(Int64(index))
        case .ending: fields["phase"] = .string("ending")
        case .finished: fields["phase"] = .string("finished")
        }
        fields["devices"] = .array(
            status.devices.keys.sorted().map { id in
                let outcome = status.devices[id] ?? DeviceOutcome()
                return .object([
                    "id": .string(id.rawValue), "friendly_name": .string(names[id] ?? id.rawValue),
                    "sent": .integer(Int64(outcome.sent)), "confirmed": .integer(Int64(outcome.confirmed)),
                    "skipped": .integer(Int64(outcome.skipped)),
                ])
            })
        return .object(fields)
    }

    /// A duration in seconds, to a tenth.
    static func seconds(_ duration: Duration) -> JSONValue {
        let milliseconds = SessionDetailCodec.milliseconds(duration)
        return .double((Double(milliseconds) / 100).rounded() / 10)
    }

    /// One cue as `session_cue` carries it.
    static func cue(_ record: CueRecord, session: SessionID, names: [DeviceID: String]) -> [String: JSONValue] {
        [
            "id": .string(session.rawValue), "index": .integer(Int64(record.cueIndex)),
            "kind": .string(SessionDetailCodec.kind(record.kind)), "description": .string(record.kind.description),
            "device": record.deviceID.map { .string(names[$0] ?? $0.rawValue) } ?? .null,
            "planned_seconds": seconds(record.planned), "actual_seconds": seconds(record.actual),
            "lateness_ms": .integer(SessionDetailCodec.milliseconds(record.lateness)),
            "outcome": .string(record.outcome.description),
        ]
    }

    /// A finished session in `session/history`.
    static func history(_ record: SessionRecord) -> JSONValue {
        .object([
            "id": .string(record.id.rawValue), "preset": .string(record.presetName),
            "state": .string(record.state.rawValue),
            "started_at": .string(ISO8601DateFormatter().string(from: record.startedAt)),
            "ended_at": record.endedAt.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null,
            "elapsed_seconds": seconds(record.elapsed),
            "devices": .array(record.devices.map { .string($0.rawValue) }),
        ])
    }
}
