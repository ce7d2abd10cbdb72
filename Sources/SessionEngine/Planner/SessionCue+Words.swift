extension SessionCue.Kind: RawRepresentable {
    /// The cue as the cue log and the `session_cue` event write it: `start`,
    /// `stage_start:0`, `bell:0:1`, `bell_return:0:1`, `end`, `ramp_step:3:10`,
    /// `end_effect`, `restore`.
    public var rawValue: String {
        switch self {
        case .start: "start"
        case .stageStart(let stage): "stage_start:\(stage)"
        case .bell(let stage, let ring): "bell:\(stage):\(ring)"
        case .bellReturn(let stage, let ring): "bell_return:\(stage):\(ring)"
        case .end: "end"
        case .rampStep(let step, let count): "ramp_step:\(step):\(count)"
        case .endEffect: "end_effect"
        case .restore: "restore"
        }
    }

    /// Reads a stored cue kind back; nil for anything else (a damaged log line).
    public init?(rawValue text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let numbers = parts.dropFirst().compactMap { Int($0) }.filter { $0 >= 0 }
        guard numbers.count == parts.count - 1 else { return nil }
        switch (parts[0], numbers.count) {
        case ("start", 0): self = .start
        case ("stage_start", 1): self = .stageStart(stage: numbers[0])
        case ("bell", 2): self = .bell(stage: numbers[0], ring: numbers[1])
        case ("bell_return", 2): self = .bellReturn(stage: numbers[0], ring: numbers[1])
        case ("end", 0): self = .end
        case ("ramp_step", 2): self = .rampStep(step: numbers[0], of: numbers[1])
        case ("end_effect", 0): self = .endEffect
        case ("restore", 0): self = .restore
        default: return nil
        }
    }
}
