import Foundation

/// What a person asks for when starting a session: an optional warm-up, then stages, an
/// open-ended sit, or a sit that ends at a wall-clock time. Pure data; `resolve` checks
/// it and turns it into concrete stages.
public struct SessionConfiguration: Hashable, Sendable, Codable {
    /// How the meditation part after the warm-up is measured.
    public enum Length: Hashable, Sendable, Codable {
        /// One or more stages, in order.
        case stages([SessionStage])
        /// Until stopped or ended by hand, at most `SessionConfiguration.maximumLength`.
        case openEnded(bellInterval: Duration?)
        /// Ends at the next occurrence of this local time after the start.
        case until(TimeOfDay, bellInterval: Duration?)
    }

    /// The longest session, warm-up included.
    public static let maximumLength: Duration = .seconds(24 * 3600)
    static let maximumNameLength = 40

    /// Settling time before the first stage; nil or zero for none.
    public var warmUp: Duration?
    public var length: Length

    public init(warmUp: Duration? = nil, length: Length) {
        self.warmUp = warmUp
        self.length = length
    }

    /// The common case (`timer start --minutes N --interval M --warmup S`): one stage.
    public static func minutes(_ minutes: Int, bellEveryMinutes: Int? = nil, warmUpSeconds: Int = 0)
        -> SessionConfiguration
    {
        SessionConfiguration(
            warmUp: warmUpSeconds == 0 ? nil : .seconds(warmUpSeconds),
            length: .stages([SessionStage(name: "meditation", minutes: minutes, bellEveryMinutes: bellEveryMinutes)]))
    }

    /// Checks every field and lays the session out as concrete stages.
    ///
    /// - Parameters:
    ///   - start: the instant the session starts; "until HH:MM" is counted from it.
    ///   - calendar: its time zone decides what "07:30" means (and DST shifts).
    public func resolve(startingAt start: Date, calendar: Calendar) throws(SessionError) -> ResolvedSession {
        let warmUp = try checkedWarmUp()
        switch length {
        case .stages(let stages):
            guard !stages.isEmpty else { throw .noStages }
            for (index, stage) in stages.enumerated() { try Self.check(stage, field: "stages[\(index)]") }
            let total = stages.reduce(warmUp) { $0 + $1.length }
            guard total <= Self.maximumLength else { throw .tooLong(total: total, limit: Self.maximumLength) }
            return ResolvedSession(warmUp: warmUp, stages: stages, isOpenEnded: false)
        case .openEnded(let interval):
            let stage = SessionStage(name: "open", length: Self.maximumLength - warmUp, bellInterval: interval)
            try Self.check(interval: interval, in: stage, field: "interval")
            return ResolvedSession(warmUp: warmUp, stages: [stage], isOpenEnded: true)
        case .until(let time, let interval):
            var components = DateComponents()
            components.hour = time.hour
            components.minute = time.minute
            components.second = 0
            guard
                let end = calendar.nextDate(
                    after: start, matching: components, matchingPolicy: .nextTime, direction: .forward)
            else { throw .invalidTimeOfDay(time.description) }
            let total = Duration.milliseconds(Int64((end.timeIntervalSince(start) * 1000).rounded(.down)))
            guard total > warmUp else { throw .untilTooSoon(until: time.description, warmUp: warmUp) }
            let stage = SessionStage(name: "meditation", length: total - warmUp, bellInterval: interval)
            try Self.check(interval: interval, in: stage, field: "interval")
            return ResolvedSession(warmUp: warmUp, stages: [stage], isOpenEnded: false)
        }
    }

    private func checkedWarmUp() throws(SessionError) -> Duration {
        guard let warmUp, warmUp != .zero else { return .zero }
        guard warmUp > .zero else { throw .nonPositiveDuration(field: "warmUp", value: warmUp) }
        guard warmUp < Self.maximumLength else { throw .tooLong(total: warmUp, limit: Self.maximumLength) }
        return warmUp
    }

    private static func check(_ stage: SessionStage, field: String) throws(SessionError) {
        try checkName(stage.name, field: "\(field).name")
        guard stage.length > .zero else { throw .nonPositiveDuration(field: "\(field).length", value: stage.length) }
        try check(interval: stage.bellInterval, in: stage, field: "\(field).interval")
    }

    private static func check(interval: Duration?, in stage: SessionStage, field: String) throws(SessionError) {
        guard let interval else { return }
        guard interval > .zero else { throw .nonPositiveDuration(field: field, value: interval) }
        guard interval <= stage.length else {
            throw .intervalLongerThanStage(field: field, interval: interval, stage: stage.length)
        }
    }

    /// Stage names appear in progress views and in `--stage NAME:MIN[:INTERVAL]`, so they
    /// are printable, at most 40 characters, and free of `:` and `,`.
    static func checkName(_ name: String, field: String) throws(SessionError) {
        if name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .invalidName(field: field, name: name, reason: "it is empty")
        }
        if name.count > maximumNameLength {
            throw .invalidName(field: field, name: name, reason: "longer than \(maximumNameLength) characters")
        }
        if name.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) {
            throw .invalidName(field: field, name: name, reason: "it contains control characters")
        }
        if name.contains(":") || name.contains(",") {
            throw .invalidName(field: field, name: name, reason: "':' and ',' separate fields on the command line")
        }
    }
}
