import Foundation
import SessionEngine
import Timing
import TuyaCore

/// The JSON kept in a stored session's `detail`: the configuration, the resolved stages
/// and the states captured at the start. Durations are whole milliseconds (`Duration`'s
/// own encoding is two 64-bit halves that JSON integers cannot always carry); every value
/// read back is checked, and a damaged row is a `SessionDetailError` naming the field.
struct StoredSessionDetail: Codable, Hashable {
    var configuration: StoredConfiguration
    var session: StoredResolvedSession
    /// Missing or null in rows that captured nothing.
    var captured: StoredCapturedStates?

    init(_ record: SessionRecord) {
        configuration = StoredConfiguration(record.configuration)
        session = StoredResolvedSession(record.session)
        captured = StoredCapturedStates(record.captured)
    }

    /// Reads a row's detail, naming the field at fault (`detail.session.stages[0].length_ms`).
    static func read(_ value: JSONValue, session id: String) throws(SessionDetailError) -> StoredSessionDetail {
        do {
            return try JSONDecoder().decode(StoredSessionDetail.self, from: JSONEncoder().encode(value))
        } catch let error as DecodingError {
            throw SessionDetailError(session: id, decoding: error)
        } catch {
            throw SessionDetailError(session: id, field: "detail", reason: "cannot be read (\(error))")
        }
    }
}

/// A duration as whole milliseconds, within ±10 years (larger is not a session length and
/// could overflow).
struct StoredMilliseconds: Codable, Hashable {
    var duration: Duration

    init(_ duration: Duration) {
        self.duration = duration
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let number = try? container.decode(Int64.self), abs(number) <= 315_360_000_000 else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "is not a whole number of milliseconds")
        }
        duration = .milliseconds(number)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(duration.wholeMilliseconds)
    }
}

struct StoredStage: Codable, Hashable {
    var name: String
    var length: StoredMilliseconds
    var interval: StoredMilliseconds?

    enum CodingKeys: String, CodingKey {
        case name
        case length = "length_ms"
        case interval = "interval_ms"
    }

    init(_ stage: SessionStage) {
        name = stage.name
        length = StoredMilliseconds(stage.length)
        interval = stage.bellInterval.map(StoredMilliseconds.init)
    }

    var stage: SessionStage {
        SessionStage(name: name, length: length.duration, bellInterval: interval?.duration)
    }
}

/// `{"kind":"stages"|"open_ended"|"until", "warm_up_ms", "stages", "interval_ms", "until"}`.
struct StoredConfiguration: Codable, Hashable {
    var configuration: SessionConfiguration

    private enum Kind: String, Codable {
        case stages
        case openEnded = "open_ended"
        case until
    }

    private enum CodingKeys: String, CodingKey {
        case kind, stages, until
        case warmUp = "warm_up_ms"
        case interval = "interval_ms"
    }

    init(_ configuration: SessionConfiguration) {
        self.configuration = configuration
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(Kind.self, forKey: .kind)
        let warmUp = try container.decodeIfPresent(StoredMilliseconds.self, forKey: .warmUp)?.duration
        let interval = try container.decodeIfPresent(StoredMilliseconds.self, forKey: .interval)?.duration
        let length: SessionConfiguration.Length =
            switch kind {
            case .stages: .stages(try container.decode([StoredStage].self, forKey: .stages).map(\.stage))
            case .openEnded: .openEnded(bellInterval: interval)
            case .until: .until(try container.decode(StoredTimeOfDay.self, forKey: .until).time, bellInterval: interval)
            }
        configuration = SessionConfiguration(warmUp: warmUp, length: length)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(configuration.warmUp.map(StoredMilliseconds.init), forKey: .warmUp)
        switch configuration.length {
        case .stages(let stages):
            try container.encode(Kind.stages, forKey: .kind)
            try container.encode(stages.map(StoredStage.init), forKey: .stages)
        case .openEnded(let interval):
            try container.encode(Kind.openEnded, forKey: .kind)
            try container.encodeIfPresent(interval.map(StoredMilliseconds.init), forKey: .interval)
        case .until(let time, let interval):
            try container.encode(Kind.until, forKey: .kind)
            try container.encode(StoredTimeOfDay(time: time), forKey: .until)
            try container.encodeIfPresent(interval.map(StoredMilliseconds.init), forKey: .interval)
        }
    }
}

/// "HH:MM".
struct StoredTimeOfDay: Codable, Hashable {
    var time: TimeOfDay

    init(time: TimeOfDay) {
        self.time = time
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let time = try? TimeOfDay(parsing: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "is not HH:MM")
        }
        self.time = time
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(time.description)
    }
}

/// The stages as planned: `{"warm_up_ms", "stages" (at least one), "open_ended"}`.
struct StoredResolvedSession: Codable, Hashable {
    var warmUp: StoredMilliseconds?
    var stages: [StoredStage]
    var openEnded: Bool?

    enum CodingKeys: String, CodingKey {
        case stages
        case warmUp = "warm_up_ms"
        case openEnded = "open_ended"
    }

    init(_ session: ResolvedSession) {
        warmUp = StoredMilliseconds(session.warmUp)
        stages = session.stages.map(StoredStage.init)
        openEnded = session.isOpenEnded
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        warmUp = try container.decodeIfPresent(StoredMilliseconds.self, forKey: .warmUp)
        stages = try container.decode([StoredStage].self, forKey: .stages)
        openEnded = try container.decodeIfPresent(Bool.self, forKey: .openEnded)
        guard !stages.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .stages, in: container, debugDescription: "is empty")
        }
    }

    var session: ResolvedSession {
        ResolvedSession(warmUp: warmUp?.duration ?? .zero, stages: stages.map(\.stage), isOpenEnded: openEnded ?? false)
    }
}
