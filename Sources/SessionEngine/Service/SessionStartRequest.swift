/// What to start: a preset (the configured default when nil), the session's shape, and
/// the devices by friendly name or id (every paired device when nil).
public struct SessionStartRequest: Hashable, Sendable {
    public var preset: String?
    public var configuration: SessionConfiguration
    public var devices: [String]?
    /// With an `until` length: tomorrow's occurrence of the time is meant (`UntilRule`).
    public var untilTomorrow: Bool

    public init(
        preset: String? = nil, configuration: SessionConfiguration, devices: [String]? = nil,
        untilTomorrow: Bool = false
    ) {
        self.preset = preset
        self.configuration = configuration
        self.devices = devices
        self.untilTomorrow = untilTomorrow
    }
}

/// `timer history`: totals and streaks over every finished session, the latest sessions
/// and the badges earned.
public struct SessionHistoryReport: Sendable {
    public var summary: SessionHistory
    public var sessions: [SessionRecord]
    public var badges: Set<Badge>
}
