import SessionEngine
import TuyaCore

/// The JSON of `<base>/bridge/session` (retained), `session/status` and the CLI's
/// `timer status --json`: times in seconds with a tenth, devices by friendly name;
/// `{"state":"idle"}` when no session runs.
public enum SessionStatusPayload: Codable, Hashable, Sendable {
    case idle
    case active(Active)

    /// A running or paused session.
    public struct Active: Codable, Hashable, Sendable {
        var id: String
        var preset: String
        var state: SessionState
        var phase: String
        var stage: String?
        var stageIndex: Int?
        var elapsedSeconds: SessionSeconds
        @NullWhenAbsent var remainingSeconds: SessionSeconds?
        @NullWhenAbsent var nextBellSeconds: SessionSeconds?
        var cuesFired: Int
        var cuesSkipped: Int
        var cuesTotal: Int
        var devices: [Device]

        enum CodingKeys: String, CodingKey {
            case id, preset, state, phase, stage, devices
            case stageIndex = "stage_index"
            case elapsedSeconds = "elapsed_seconds"
            case remainingSeconds = "remaining_seconds"
            case nextBellSeconds = "next_bell_seconds"
            case cuesFired = "cues_fired"
            case cuesSkipped = "cues_skipped"
            case cuesTotal = "cues_total"
        }
    }

    /// What became of one device's cues so far.
    public struct Device: Codable, Hashable, Sendable {
        var id: String
        var friendlyName: String
        var sent: Int
        var confirmed: Int
        var skipped: Int

        enum CodingKeys: String, CodingKey {
            case id, sent, confirmed, skipped
            case friendlyName = "friendly_name"
        }
    }

    public init(_ status: SessionStatus?, names: [DeviceID: String]) {
        guard let status else {
            self = .idle
            return
        }
        var active = Active(
            id: status.id.rawValue, preset: status.presetName, state: status.state, phase: "",
            elapsedSeconds: SessionSeconds(status.elapsed), remainingSeconds: status.remaining.map(SessionSeconds.init),
            nextBellSeconds: status.nextBell.map(SessionSeconds.init), cuesFired: status.firedCues,
            cuesSkipped: status.skippedCues, cuesTotal: status.totalCues,
            devices: status.devices.keys.sorted().map { id in
                let outcome = status.devices[id] ?? DeviceOutcome()
                return Device(
                    id: id.rawValue, friendlyName: names[id] ?? id.rawValue, sent: outcome.sent,
                    confirmed: outcome.confirmed, skipped: outcome.skipped)
            })
        switch status.phase {
        case .warmUp: active.phase = "warm_up"
        case .stage(let index, let name):
            active.phase = "stage"
            active.stage = name
            active.stageIndex = index
        case .ending: active.phase = "ending"
        case .finished: active.phase = "finished"
        }
        self = .active(active)
    }

    private enum IdleKeys: String, CodingKey {
        case state
    }

    public init(from decoder: any Decoder) throws {
        let idle = try decoder.container(keyedBy: IdleKeys.self)
        if try idle.decode(String.self, forKey: .state) == "idle" {
            self = .idle
        } else {
            self = .active(try Active(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .idle:
            var container = encoder.container(keyedBy: IdleKeys.self)
            try container.encode("idle", forKey: .state)
        case .active(let active):
            try active.encode(to: encoder)
        }
    }

    /// As the bridge publishes it.
    public var json: JSONValue { BridgeJSON.value(self) }
}
