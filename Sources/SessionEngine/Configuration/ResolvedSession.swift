/// A checked configuration laid out as concrete stages: the planner's input.
public struct ResolvedSession: Hashable, Sendable, Codable {
    /// Zero when there is none.
    public var warmUp: Duration
    public var stages: [SessionStage]
    /// An open-ended session is planned as one stage up to the 24 h limit and is
    /// normally ended by hand (`SessionRunner.finish()`).
    public var isOpenEnded: Bool

    public init(warmUp: Duration, stages: [SessionStage], isOpenEnded: Bool) {
        self.warmUp = warmUp
        self.stages = stages
        self.isOpenEnded = isOpenEnded
    }

    /// When each stage starts, from the session start.
    public var stageStarts: [Duration] {
        var starts: [Duration] = []
        var offset = warmUp
        for stage in stages {
            starts.append(offset)
            offset += stage.length
        }
        return starts
    }

    /// Where the meditation ends and the end effect begins.
    public var end: Duration { stages.reduce(warmUp) { $0 + $1.length } }

    /// The phase at an elapsed time, ignoring an early finish (the runner knows about that).
    public func phase(at elapsed: Duration) -> SessionPhase {
        if elapsed < warmUp { return .warmUp }
        if elapsed >= end { return .ending }
        var index = 0
        for (position, start) in stageStarts.enumerated() where start <= elapsed { index = position }
        return .stage(index: index, name: stages[index].name)
    }
}

/// What part of a session is under way.
public enum SessionPhase: Hashable, Sendable, Codable, CustomStringConvertible {
    case warmUp
    case stage(index: Int, name: String)
    /// The end effect (sunrise, fade-out, restore) is playing.
    case ending
    /// Every cue has fired, or the session was stopped.
    case finished

    public var description: String {
        switch self {
        case .warmUp: "warm-up"
        case .stage(_, let name): name
        case .ending: "ending"
        case .finished: "finished"
        }
    }
}
