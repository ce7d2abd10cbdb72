import Foundation
import TuyaCore

/// A timer session as the database keeps it. The columns are what history and recovery
/// query; `detail` holds the rest of what the session engine needs to plan the session
/// again (its configuration, resolved stages, states captured at the start) as JSON the
/// gateway writes and reads, so Storage never depends on the engine's types.
public struct StoredSession: Hashable, Sendable {
    public var id: String
    public var preset: String
    /// The engine's state name (`running`, `paused`, `completed`, `stopped`, `interrupted`, …).
    public var state: String
    public var startedAt: Date
    public var endedAt: Date?
    /// Time in the session, pauses excluded, in milliseconds.
    public var elapsedMilliseconds: Int64
    /// When `elapsedMilliseconds` was true, on the wall clock: for a paused session, when its
    /// pause began. Nil in rows saved before it was kept.
    public var elapsedAt: Date?
    /// When the end effect started early (a stop), in session milliseconds.
    public var endingStartedMilliseconds: Int64?
    public var devices: [DeviceID]
    public var detail: JSONValue

    public init(
        id: String, preset: String, state: String, startedAt: Date, endedAt: Date? = nil, elapsedMilliseconds: Int64,
        elapsedAt: Date? = nil, endingStartedMilliseconds: Int64? = nil, devices: [DeviceID], detail: JSONValue
    ) {
        self.id = id
        self.preset = preset
        self.state = state
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.elapsedMilliseconds = elapsedMilliseconds
        self.elapsedAt = elapsedAt
        self.endingStartedMilliseconds = endingStartedMilliseconds
        self.devices = devices
        self.detail = detail
    }
}

/// When a stored session started and how long it ran: one row of the totals and streaks.
public struct StoredSessionSpan: Hashable, Sendable {
    public var startedAt: Date
    public var elapsedMilliseconds: Int64

    public init(startedAt: Date, elapsedMilliseconds: Int64) {
        self.startedAt = startedAt
        self.elapsedMilliseconds = elapsedMilliseconds
    }
}

/// One line of a session's cue log: planned and actual offsets (lateness is their
/// difference) and what became of the cue's command.
public struct StoredCue: Hashable, Sendable {
    public var index: Int
    public var kind: String
    public var device: DeviceID?
    public var plannedMilliseconds: Int64
    public var actualMilliseconds: Int64
    /// The outcome as the engine words it (`confirmed`, `skipped: …`).
    public var outcome: String

    public init(
        index: Int, kind: String, device: DeviceID?, plannedMilliseconds: Int64, actualMilliseconds: Int64,
        outcome: String
    ) {
        self.index = index
        self.kind = kind
        self.device = device
        self.plannedMilliseconds = plannedMilliseconds
        self.actualMilliseconds = actualMilliseconds
        self.outcome = outcome
    }
}
