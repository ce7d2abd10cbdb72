import Foundation
import TuyaCore

/// Turns a session and a preset into the timeline the runner plays: pure, no clock.
///
/// - Start scenes at 0; a marker at each stage start; interval bells counted from each
///   stage's start (a light dips and returns); at the end a marker, the end effect, and
///   the restore when the preset asks for it.
/// - Tuya bulbs ignore transition times, so ramps are stepped here: each step writes
///   brightness and temperature together, and steps to one device are at least its frame
///   gap apart (coarse steps, at most `maximumRampSteps`, repeated values dropped).
public struct SessionPlanner: Sendable {
    public struct Options: Hashable, Sendable {
        /// The gap between two frames to one device when `frameGaps` has none for it.
        public var defaultFrameGap: Duration
        /// Per device, e.g. from the profile's `frameGapMilliseconds`.
        public var frameGaps: [DeviceID: Duration]
        /// A ramp never has more steps than this, however long it is.
        public var maximumRampSteps: Int

        public init(
            defaultFrameGap: Duration = .seconds(1), frameGaps: [DeviceID: Duration] = [:], maximumRampSteps: Int = 60
        ) {
            self.defaultFrameGap = defaultFrameGap
            self.frameGaps = frameGaps
            self.maximumRampSteps = maximumRampSteps
        }

        public func frameGap(for device: DeviceID) -> Duration {
            max(frameGaps[device] ?? defaultFrameGap, .milliseconds(1))
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// At most this many interval bells in one session: one a minute for the longest session
    /// (24 h). Each bell is a cue and a pulse on every light, planned, queued and logged, so a
    /// bell every second for a day (86,400 of them) would hold the gateway's memory and disk.
    public static let maximumBells = 1_440

    /// Resolves and checks the configuration, then plans it.
    public func plan(
        _ configuration: SessionConfiguration, startingAt start: Date, calendar: Calendar, preset: SessionPreset,
        devices: [TuyaDevice]
    ) throws(SessionError) -> SessionTimeline {
        try plan(configuration.resolve(startingAt: start, calendar: calendar), preset: preset, devices: devices)
    }

    /// Plans a resolved session for these devices. Devices whose role the preset leaves
    /// out get no cues; the session still runs as a timer with no devices at all.
    public func plan(_ session: ResolvedSession, preset: SessionPreset, devices: [TuyaDevice]) throws(SessionError)
        -> SessionTimeline
    {
        try preset.validate()
        let bells = session.stages.reduce(0) { $0 + $1.bellCount }
        guard bells <= Self.maximumBells else { throw .tooManyBells(count: bells, limit: Self.maximumBells) }
        var unique: [DeviceID: TuyaDevice] = [:]
        for device in devices { unique[device.id] = device }
        let lights = unique.values.filter { $0.category == .light }.map(\.id).sorted()
        let diffusers = unique.values.filter { $0.category == .diffuser }.map(\.id).sorted()

        var drafts = Drafts()
        if let light = preset.light, !light.startScene.isEmpty {
            for id in lights { drafts.add(.zero, .start, id, .send(.light(light.startScene))) }
        }
        if let diffuser = preset.diffuser, !diffuser.startScene.isEmpty {
            for id in diffusers { drafts.add(.zero, .start, id, .send(.diffuser(diffuser.startScene))) }
        }
        for (stage, start) in session.stageStarts.enumerated() {
            drafts.add(start, .stageStart(stage: stage), nil, .none)
            for (ring, offset) in session.stages[stage].bellOffsets.enumerated() {
                drafts.add(start + offset, .bell(stage: stage, ring: ring + 1), nil, .none)
                if let light = preset.light {
                    for id in lights {
                        addBell(
                            light, stage: stage, ring: ring + 1, at: start + offset, before: session.end, to: id,
                            &drafts)
                    }
                }
            }
        }

        var ending = Drafts()
        ending.add(.zero, .end, nil, .none)
        let restores = preset.restores
        if let light = preset.light {
            for id in lights {
                let length = addEnd(light, to: id, &ending)
                if restores.light && light.end != .restore {
                    let offset = length == .zero ? .zero : length + options.frameGap(for: id)
                    ending.add(offset, .restore, id, .restoreCapturedState)
                }
            }
        }
        if let diffuser = preset.diffuser {
            for id in diffusers {
                switch diffuser.end {
                case .none: break
                case .fadeOut:
                    ending.add(.zero, .endEffect, id, .send(.diffuser(DiffuserCommand(power: false, mist: false))))
                case .restore: ending.add(.zero, .restore, id, .restoreCapturedState)
                }
                if restores.diffuser && diffuser.end != .restore {
                    let offset = diffuser.end == .none ? .zero : options.frameGap(for: id)
                    ending.add(offset, .restore, id, .restoreCapturedState)
                }
            }
        }
        return timeline(
            session: session, preset: preset, main: drafts, ending: ending, lights: lights, diffusers: diffusers)
    }

    /// A light's pulse for one bell: a dip and its return, both before `end` (the meditation's):
    /// a bell too close to the end gets no pulse, or its return would land in the end effect
    /// (after a restore, the lamp would stay at the bell's level).
    private func addBell(
        _ light: LightPreset, stage: Int, ring: Int, at offset: Duration, before end: Duration, to id: DeviceID,
        _ drafts: inout Drafts
    ) {
        guard case .dip(let percent, let duration) = light.bell, let scene = light.startScene.brightness else { return }
        let back = offset + max(duration, options.frameGap(for: id))
        guard back < end else { return }
        let dipped = max(1, Int((Double(scene * percent) / 100).rounded()))
        drafts.add(offset, .bell(stage: stage, ring: ring), id, .send(.light(LightCommand(brightness: dipped))))
        drafts.add(back, .bellReturn(stage: stage, ring: ring), id, .send(.light(LightCommand(brightness: scene))))
    }

    /// Adds a light's end effect (offsets from the end) and returns how long it lasts.
    private func addEnd(_ light: LightPreset, to id: DeviceID, _ drafts: inout Drafts) -> Duration {
        let scene = light.startScene.brightness ?? 100
        switch light.end {
        case .none:
            return .zero
        case .restore:
            drafts.add(.zero, .restore, id, .restoreCapturedState)
            return .zero
        case .sunrise(let brightness, let kelvin, let duration):
            let fromKelvin = light.startScene.colorTemperature ?? kelvin
            let steps = ramp(over: duration, gap: options.frameGap(for: id)) { fraction in
                [interpolate(scene, brightness, fraction), interpolate(fromKelvin, kelvin, fraction)]
            }
            for (number, step) in steps.enumerated() {
                let command = LightCommand(
                    power: number == 0 ? true : nil, brightness: step.values[0], colorTemperature: step.values[1])
                drafts.add(step.offset, .rampStep(step: number + 1, of: steps.count), id, .send(.light(command)))
            }
            return duration
        case .fadeOut(let duration):
            let steps = ramp(over: duration, gap: options.frameGap(for: id)) { fraction in
                fraction >= 1 ? [0] : [max(1, interpolate(scene, 0, fraction))]
            }
            for (number, step) in steps.enumerated() {
                let command =
                    step.values[0] == 0 ? LightCommand(power: false) : LightCommand(brightness: step.values[0])
                drafts.add(step.offset, .rampStep(step: number + 1, of: steps.count), id, .send(.light(command)))
            }
            return duration
        }
    }

    /// Evenly spaced steps over `duration`, at least `gap` apart and at most
    /// `maximumRampSteps`, dropping a step whose values repeat the one before (so the
    /// target may be reached, and the ramp end, before `duration` when rounding allows).
    func ramp(over duration: Duration, gap: Duration, values: (Double) -> [Int]) -> [(offset: Duration, values: [Int])]
    {
        let fitting = Int((duration / gap).rounded(.down))
        let count = max(1, min(options.maximumRampSteps, fitting))
        var steps: [(offset: Duration, values: [Int])] = []
        var previous = values(0)
        for step in 1...count {
            let current = values(Double(step) / Double(count))
            if current == previous { continue }
            steps.append((duration * step / count, current))
            previous = current
        }
        return steps
    }

    private func timeline(
        session: ResolvedSession, preset: SessionPreset, main: Drafts, ending: Drafts, lights: [DeviceID],
        diffusers: [DeviceID]
    ) -> SessionTimeline {
        let end = session.end
        let all =
            main.items
            + ending.items.map {
                Draft(
                    offset: $0.offset + end, sequence: $0.sequence + main.items.count, kind: $0.kind, device: $0.device,
                    action: $0.action)
            }
        let ordered = all.sorted { ($0.offset, $0.sequence) < ($1.offset, $1.sequence) }
        var indexBySequence: [Int: Int] = [:]
        let cues = ordered.enumerated().map { index, draft in
            indexBySequence[draft.sequence] = index
            return SessionCue(
                index: index, offset: draft.offset, kind: draft.kind, deviceID: draft.device, action: draft.action)
        }
        let endingCues = ending.items.map { draft in
            SessionCue(
                index: indexBySequence[draft.sequence + main.items.count]!, offset: draft.offset, kind: draft.kind,
                deviceID: draft.device, action: draft.action)
        }.sorted { ($0.offset, $0.index) < ($1.offset, $1.index) }
        let restores = preset.restores
        let capture = (restores.light ? lights : []) + (restores.diffuser ? diffusers : [])
        return SessionTimeline(
            session: session, presetName: preset.name, cues: cues, endingCues: endingCues,
            devicesToCapture: capture.sorted())
    }
}

/// Cues before they are ordered and numbered; `sequence` keeps insertion order among cues
/// at the same offset.
private struct Draft {
    var offset: Duration
    var sequence: Int
    var kind: SessionCue.Kind
    var device: DeviceID?
    var action: SessionCue.Action
}

private struct Drafts {
    var items: [Draft] = []

    mutating func add(_ offset: Duration, _ kind: SessionCue.Kind, _ device: DeviceID?, _ action: SessionCue.Action) {
        items.append(Draft(offset: offset, sequence: items.count, kind: kind, device: device, action: action))
    }
}

private func interpolate(_ from: Int, _ to: Int, _ fraction: Double) -> Int {
    Int((Double(from) + Double(to - from) * fraction).rounded())
}
